// @module-tag unit

import { describe, expect, it } from "vitest";
import { largestPresent, sum } from "../src/lib/pool/aggregate";
import { poolFacts } from "../src/lib/pool/facts";
import { snapshot } from "./pool-snapshots";

describe("aggregates", () => {
  it.each<[number[], number]>([
    [[], 0],
    [[3], 3],
    [[1, 2, 3], 6],
  ])("sum of %j is %d", (values, expected) => {
    expect(sum(values)).toBe(expected);
  });

  it.each<[(number | null)[], number | null]>([
    [[], null],
    [[null, null], null],
    [[null, 4, 2], 4],
    [[0, null], 0],
  ])("largest present of %j is %j", (values, expected) => {
    expect(largestPresent(values)).toBe(expected);
  });
});

describe("the pool's facts", () => {
  it("are none without a host", () => {
    expect(poolFacts([])).toBeNull();
  });

  it("of one host are its own, with its pressure figures, streaks and remote workers", () => {
    const host = snapshot({
      min: 2,
      upStreak: 3,
      remoteActiveWorkers: 5,
      pressure: { readySessionCount: 7, lockedReadySessionCount: 1 },
    });
    expect(poolFacts([host])).toMatchObject({
      hosts: 1,
      min: 2,
      readySessionCount: 7,
      lockedReadySessionCount: 1,
      upStreak: 3,
      remoteActiveWorkers: 5,
    });
  });

  it("of several hosts add up capacities, take the largest queue-wide figures and the newest rebalance", () => {
    const facts = poolFacts([
      snapshot({
        hostId: "a",
        min: 1,
        max: 4,
        busyWorkers: 2,
        globalSuggested: 6,
        queueWaitP50Ms: null,
        queueWaitP95Ms: 900,
        pressures: { queue: 2, saturation: 1, subagentReserve: 0, age: 3 },
        lastRebalanceAt: 2_000,
        lastRebalanceReason: "scale_up",
        pressure: { readySessionCount: 5, oldestSchedulableReadyAgeMs: 100 },
      }),
      snapshot({
        hostId: "b",
        min: 2,
        max: 8,
        busyWorkers: 3,
        globalSuggested: 4,
        queueWaitP50Ms: 300,
        queueWaitP95Ms: 400,
        pressures: { queue: 1, saturation: 4, subagentReserve: 2, age: 0 },
        lastRebalanceAt: 1_000,
        lastRebalanceReason: "steady",
        pressure: { readySessionCount: 4, oldestSchedulableReadyAgeMs: 250 },
      }),
    ]);
    expect(facts).toEqual(
      expect.objectContaining({
        hosts: 2,
        min: 3,
        max: 12,
        busyWorkers: 5,
        globalSuggested: 6,
        readySessionCount: 5,
        oldestSchedulableReadyAgeMs: 250,
        queueWaitP50Ms: 300,
        queueWaitP95Ms: 900,
        pressures: { queue: 2, saturation: 4, subagentReserve: 2, age: 3 },
        lastRebalanceAt: 2_000,
        lastRebalanceReason: "scale_up",
        upStreak: null,
        downStreak: null,
        upCooldownRemainingMs: null,
        downCooldownRemainingMs: null,
        remoteActiveWorkers: null,
      }),
    );
  });
});
