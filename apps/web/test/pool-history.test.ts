// @module-tag unit

import { describe, expect, it } from "vitest";
import { dotsFor, historyPoints } from "../src/lib/pool/history";
import { ALL_HOSTS } from "../src/lib/pool/hosts";
import { sample } from "./pool-snapshots";

const history = [
  {
    hostId: "a",
    samples: [
      sample(10_100, {
        readySessionCount: 3,
        busyWorkers: 1,
        idleWorkers: 2,
        desired: 3,
        queueWaitP95Ms: 50,
      }),
      sample(15_000, { readySessionCount: 1, busyWorkers: 1, idleWorkers: 0, desired: 1 }),
    ],
  },
  {
    hostId: "b",
    samples: [
      sample(4_900, { readySessionCount: 9, busyWorkers: 4, idleWorkers: 0, desired: 4 }),
      sample(9_800, {
        readySessionCount: 2,
        busyWorkers: 2,
        idleWorkers: 1,
        desired: 2,
        queueWaitP50Ms: 20,
        queueWaitP95Ms: 40,
      }),
    ],
  },
];

describe("the history charts' points", () => {
  it("of one host are its samples as they are", () => {
    expect(historyPoints(history, "b")).toEqual([
      { at: 4_900, ready: 9, busy: 4, idle: 0, desired: 4, p50: null, p95: null },
      { at: 9_800, ready: 2, busy: 2, idle: 1, desired: 2, p50: 20, p95: 40 },
    ]);
  });

  it("of a host without history are none", () => {
    expect(historyPoints(history, "gone")).toEqual([]);
  });

  it("of all hosts add up the samples of the same 5 s, in time order", () => {
    expect(historyPoints(history, ALL_HOSTS)).toEqual([
      { at: 5_000, ready: 9, busy: 4, idle: 0, desired: 4, p50: null, p95: null },
      // 10 100 and 9 800 round to the same 10 s: workers add up, queue figures take the largest.
      { at: 10_000, ready: 3, busy: 3, idle: 3, desired: 5, p50: 20, p95: 50 },
      { at: 15_000, ready: 1, busy: 1, idle: 0, desired: 1, p50: null, p95: null },
    ]);
  });
});

describe("the lines' dots", () => {
  it.each<[number, { r: number } | false]>([
    [0, { r: 2 }],
    [120, { r: 2 }],
    [121, false],
  ])("for %d points: %j", (points, expected) => {
    expect(dotsFor(points)).toEqual(expected);
  });
});
