// @module-tag unit

import { describe, expect, it } from "vitest";
import { type HostOrder, type HostState, nextHostState } from "../src/host-state";

describe("nextHostState", () => {
  const table: [HostState, HostOrder | null, boolean, HostState][] = [
    ["active", null, false, "active"],
    ["cordoned", null, false, "active"],
    ["draining", null, false, "active"],
    ["drained", null, true, "active"],
    ["active", "cordon", false, "cordoned"],
    ["drained", "cordon", true, "cordoned"],
    ["active", "drain", false, "draining"],
    ["cordoned", "drain", false, "draining"],
    ["draining", "drain", false, "draining"],
    ["draining", "drain", true, "drained"],
    ["drained", "drain", false, "drained"],
  ];
  it.each(table)("%s under %s (emptied %s) → %s", (current, order, emptied, next) => {
    expect(nextHostState(current, order, emptied)).toBe(next);
  });
});
