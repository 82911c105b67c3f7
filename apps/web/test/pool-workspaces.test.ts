// @module-tag unit

import { describe, expect, it } from "vitest";
import { parkedText, workspaceRows } from "../src/lib/pool/workspaces";

const load = (workspaceId: string, readySessions: number, executingRuns: number, parkedRuns = 0) => ({
  workspaceId,
  readySessions,
  executingRuns,
  parkedRuns,
});

describe("the workspaces table", () => {
  it("lists the busiest first: most waiting, then most executing, then most parked, then by id", () => {
    const rows = workspaceRows({
      parkedRuns: 7,
      workspaces: [
        load("quiet", 0, 0, 7),
        load("b", 5, 1),
        load("a", 5, 1),
        load("big", 2_000, 4),
        load("c", 5, 3),
      ],
    });
    expect(rows.map((r) => r.workspaceId)).toEqual(["big", "c", "a", "b", "quiet"]);
  });

  it.each([
    [0, "No run parked."],
    [1, "1 run parked waiting for a tool result, holding no slot."],
    [500, "500 runs parked waiting for a tool result, holding no slot."],
  ])("says %d parked runs as %j", (n, text) => {
    expect(parkedText(n)).toBe(text);
  });
});
