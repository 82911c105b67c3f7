// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  capOf,
  DEFAULT_FAIR_SHARE,
  type FairShare,
  type FairShareEvent,
  fairShareOrder,
  passAfterClaim,
  wakePass,
  weightOf,
} from "../src";

const ready = (workspaceId: string, sessions: number): FairShareEvent => ({
  kind: "ready",
  workspaceId,
  sessions,
});
const release = (workspaceId: string, again = false): FairShareEvent => ({
  kind: "release",
  workspaceId,
  again,
});
const claims = (n: number): FairShareEvent[] => Array.from({ length: n }, () => ({ kind: "claim" }));
const share = (over: Partial<FairShare>): FairShare => ({ ...DEFAULT_FAIR_SHARE, ...over });

// name, fair share, events, the workspace each claim goes to ("-": none claimable)
const TABLE: [string, FairShare, FairShareEvent[], string][] = [
  [
    "equal weights alternate, ties to the smaller id",
    DEFAULT_FAIR_SHARE,
    [ready("B", 4), ready("A", 4), ...claims(6)],
    "ABABAB",
  ],
  [
    "the one with more sessions gets no more turns while the other waits",
    DEFAULT_FAIR_SHARE,
    [ready("A", 6), ready("B", 2), ...claims(9)],
    "ABABAAAA-",
  ],
  [
    "3:1 gives 3 to 1 over each cycle",
    share({ weights: { A: 3 } }),
    [ready("A", 9), ready("B", 3), ...claims(12)],
    "ABAAABAAABAA",
  ],
  [
    "weights below 1 count as well",
    share({ weights: { A: 0.5 } }),
    [ready("A", 4), ready("B", 4), ...claims(6)],
    "ABBABB",
  ],
  [
    "a workspace joining late starts at virtual time, not at 0",
    DEFAULT_FAIR_SHARE,
    [ready("A", 10), ...claims(4), ready("B", 10), ...claims(6)],
    "AAAABABABA",
  ],
  [
    "one coming back cannot bank the turns it did not want",
    DEFAULT_FAIR_SHARE,
    [ready("A", 10), ready("B", 1), ...claims(2), release("B"), ...claims(4), ready("B", 3), ...claims(4)],
    "ABAAAABABA",
  ],
  [
    "a cap skips a workspace until one of its sessions is released",
    share({ caps: { A: 2 } }),
    [ready("A", 3), ready("B", 1), ...claims(4), release("A"), ...claims(1)],
    "ABA-A",
  ],
  [
    "the others take a capped workspace's turns, and it comes back at virtual time",
    share({ caps: { A: 1 } }),
    [ready("A", 3), ready("B", 5), ...claims(4), release("A", true), ...claims(4)],
    "ABBBABB-",
  ],
  [
    "all idle: virtual time starts over",
    DEFAULT_FAIR_SHARE,
    [ready("A", 1), ...claims(1), release("A"), ready("A", 1), ready("B", 1), ...claims(2)],
    "AAB",
  ],
];

describe("fairShareOrder", () => {
  it.each(TABLE)("%s", (_name, fairShare, events, expected) => {
    expect(
      fairShareOrder(fairShare, events)
        .map((w) => w ?? "-")
        .join(""),
    ).toBe(expected);
  });
});

describe("the policy's parts", () => {
  it("weighs a missing workspace 1 and caps it nowhere, whatever its name", () => {
    const fairShare = share({ weights: { A: 2 }, caps: { A: 3 } });
    expect([weightOf(fairShare, "A"), capOf(fairShare, "A")]).toEqual([2, 3]);
    expect([weightOf(fairShare, "constructor"), capOf(fairShare, "toString")]).toEqual([1, undefined]);
  });

  it("moves a pass one stride, 1 / weight, per claim", () => {
    expect(passAfterClaim(2, 4)).toBe(2.25);
    expect(passAfterClaim(0, 0.5)).toBe(2);
  });

  it("wakes a workspace at its kept pass or virtual time, whichever is later", () => {
    expect(wakePass(undefined, 5)).toBe(5);
    expect(wakePass(3, 5)).toBe(5);
    expect(wakePass(7, 5)).toBe(7);
  });
});
