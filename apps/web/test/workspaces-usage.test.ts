// @module-tag unit

import { describe, expect, it } from "vitest";
import { HOURS, usageWindow, workspaceUsageRows } from "../src/lib/workspaces/usage";

const NOW = Date.parse("2026-12-04T21:40:00.000Z");
const load = (workspaceId: string, executingRuns: number, readySessions = 0, parkedRuns = 0) => ({
  workspaceId,
  readySessions,
  executingRuns,
  parkedRuns,
});
const used = (
  workspaceId: string,
  hour: string,
  calls: number,
  promptTokens: number,
  completionTokens: number,
) => ({
  workspaceId,
  hour,
  calls,
  promptTokens,
  completionTokens,
});

describe("the workspaces page's rows", () => {
  it("asks for the 24 hours ending with the current one", () => {
    expect(usageWindow(NOW)).toEqual({ from: "2026-12-03T22:00:00.000Z" });
  });

  it.each([
    {
      name: "nothing: no row",
      load: [],
      usage: [],
      want: [],
    },
    {
      name: "busy without a model call: a row of zero tokens",
      load: [load("idle", 2, 3, 1)],
      usage: [],
      want: [{ workspaceId: "idle", executingRuns: 2, readySessions: 3, parkedRuns: 1, calls: 0, tokens: 0 }],
    },
    {
      name: "calls without work now: a row of zero load, hours summed",
      load: [],
      usage: [
        used("a", "2026-12-04T20:00:00.000Z", 2, 100, 10),
        used("a", "2026-12-04T21:00:00.000Z", 1, 50, 5),
      ],
      want: [
        {
          workspaceId: "a",
          executingRuns: 0,
          calls: 3,
          promptTokens: 150,
          completionTokens: 15,
          tokens: 165,
        },
      ],
    },
    {
      name: "most tokens first, then most executing, then by id",
      load: [load("b", 1), load("c", 4), load("z", 9)],
      usage: [
        used("b", "2026-12-04T10:00:00.000Z", 1, 10, 0),
        used("a", "2026-12-04T10:00:00.000Z", 1, 10, 0),
        used("c", "2026-12-04T10:00:00.000Z", 1, 5, 5),
        used("big", "2026-12-04T10:00:00.000Z", 1, 900, 100),
      ],
      want: ["big", "c", "b", "a", "z"].map((workspaceId) => ({ workspaceId })),
    },
    {
      name: "an hour before the 24 is left out",
      load: [],
      usage: [
        used("old", "2026-12-03T21:00:00.000Z", 5, 500, 50),
        used("old", "2026-12-03T22:00:00.000Z", 1, 1, 1),
      ],
      want: [{ workspaceId: "old", calls: 1, tokens: 2 }],
    },
  ])("$name", ({ load: loads, usage, want }) => {
    const rows = workspaceUsageRows(loads, usage, NOW);
    expect(rows).toHaveLength(want.length);
    for (const [i, w] of want.entries()) expect(rows[i]).toMatchObject(w);
  });

  it.each([
    ["the first hour", "2026-12-03T22:00:00.000Z", 0],
    ["one in between", "2026-12-04T09:00:00.000Z", 11],
    ["the current hour", "2026-12-04T21:00:00.000Z", 23],
  ])("puts %s's tokens in its bucket, every other hour zero", (_, hour, index) => {
    const [row] = workspaceUsageRows([], [used("w", hour, 2, 30, 12)], NOW);
    expect(row!.hours).toHaveLength(HOURS);
    expect(row!.hours[0]!.hour).toBe("2026-12-03T22:00:00.000Z");
    expect(row!.hours[HOURS - 1]!.hour).toBe("2026-12-04T21:00:00.000Z");
    expect(row!.hours.map((h) => h.tokens)).toEqual(
      Array.from({ length: HOURS }, (_, i) => (i === index ? 42 : 0)),
    );
  });
});
