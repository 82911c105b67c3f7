// @module-tag unit

import { describe, expect, it } from "vitest";
import { type ClaimAheadSignals, claimAheadPolicy, DEFAULT_CLAIM_AHEAD, shouldClaimAhead } from "../src";

const short = (n: number) => Array.from({ length: n }, () => 1);
const signals = (over: Partial<ClaimAheadSignals>): ClaimAheadSignals => ({
  recentRunMs: short(8),
  foundWithoutWaiting: true,
  stopping: false,
  ...over,
});

// name, signals, claim ahead? (default policy: the last 8 runs under 5 ms)
const TABLE: [string, Partial<ClaimAheadSignals>, boolean][] = [
  ["8 short runs, work found at once", {}, true],
  ["a new slot: fewer runs than the window", { recentRunMs: short(7) }, false],
  ["one run of the window at the limit", { recentRunMs: [...short(7), 5] }, false],
  ["one long run early in the window", { recentRunMs: [40, ...short(7)] }, false],
  ["a long run older than the window", { recentRunMs: [40, ...short(8)] }, true],
  ["the slot waited for its run: the queue is drained", { foundWithoutWaiting: false }, false],
  ["the slot is stopping", { stopping: true }, false],
];

describe("shouldClaimAhead", () => {
  it.each(TABLE)("%s → %s", (_name, over, expected) => {
    expect(shouldClaimAhead(signals(over), DEFAULT_CLAIM_AHEAD)).toBe(expected);
  });

  it("never claims ahead when turned off (OAH_CLAIM_AHEAD_RUN_MS=0)", () => {
    expect(shouldClaimAhead(signals({ recentRunMs: [0, 0, 0, 0, 0, 0, 0, 0] }), claimAheadPolicy(0))).toBe(
      false,
    );
  });

  it("holds a claim for five short runs at most", () => {
    expect(claimAheadPolicy(5)).toEqual(DEFAULT_CLAIM_AHEAD);
    expect(claimAheadPolicy(50)).toEqual({ window: 8, shortRunMs: 50, holdMs: 250 });
  });
});
