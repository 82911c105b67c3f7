// @module-tag unit

import { describe, expect, it } from "vitest";
import { cancelOutcome, RUN_STATUSES, type RunStatus } from "../src";

describe("what a bulk cancel does to a run", () => {
  const table: [RunStatus, boolean, string][] = [
    ["queued", false, "cancelled"],
    ["waiting_tool", true, "cancelled"],
    ["waiting_tool", false, "cancel_requested"],
    ["running", false, "cancel_requested"],
    ["completed", false, "run_already_ended"],
    ["failed", false, "run_already_ended"],
    ["cancelled", false, "run_already_ended"],
    ["timed_out", false, "run_already_ended"],
  ];
  it.each(table)("%s (parked %s): %s", (status, parked, outcome) => {
    expect(cancelOutcome(status, parked)).toBe(outcome);
  });
  it("covers every status", () => {
    expect(new Set(table.map(([s]) => s))).toEqual(new Set(RUN_STATUSES));
  });
});
