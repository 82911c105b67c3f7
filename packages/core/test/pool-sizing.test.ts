// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  DEFAULT_HYSTERESIS,
  DEFAULT_POOL_SIZING,
  INITIAL_REBALANCE_STATE,
  NO_QUEUE_PRESSURE,
  type PoolGlobalSignals,
  type PoolSignals,
  type PoolSizingConfig,
  type Rebalance,
  type RebalanceReason,
  type RebalanceState,
  rebalance,
  sameDecision,
  shutdownRebalance,
  suggestPoolSize,
} from "../src";

const signals = (over: Partial<PoolSignals>): PoolSignals => ({
  ...NO_QUEUE_PRESSURE,
  activeWorkers: 0,
  busyWorkers: 0,
  idleWorkers: 0,
  global: null,
  ...over,
});
const config = (over: Partial<PoolSizingConfig> = {}): PoolSizingConfig => ({
  min: 1,
  max: 10,
  ...DEFAULT_POOL_SIZING,
  ...over,
});
const registry = (active: number, busy: number, remoteActive: number, remoteBusy = 0): PoolGlobalSignals => ({
  globalActiveWorkers: active,
  globalBusyWorkers: busy,
  remoteActiveWorkers: remoteActive,
  remoteBusyWorkers: remoteBusy,
});

// name, signals, config, pressures [queue, saturation, subagentReserve, age], globalSuggested, localSuggested
type Row = [
  string,
  Partial<PoolSignals>,
  Partial<PoolSizingConfig>,
  [number, number, number, number],
  number,
  number,
];

const TABLE: Row[] = [
  ["idle pool, nothing ready → min", {}, {}, [0, 0, 0, 0], 0, 1],
  // Saturation is never below queue, so queue dominates by tying it when nothing is busy.
  [
    "queue dominates (nothing busy)",
    { readySessionCount: 5, activeWorkers: 2, idleWorkers: 2 },
    {},
    [5, 5, 0, 0],
    5,
    5,
  ],
  [
    "saturation dominates",
    { readySessionCount: 3, activeWorkers: 8, busyWorkers: 4 },
    {},
    [3, 7, 0, 0],
    7,
    7,
  ],
  [
    "subagent reserve dominates",
    { readySessionCount: 1, subagentReadySessionCount: 1, activeWorkers: 8, busyWorkers: 4 },
    { reservedSubagentCapacity: 3 },
    [1, 5, 7, 0],
    7,
    7,
  ],
  [
    "age dominates (busy ratio 0.75, waited 2 s)",
    { readySessionCount: 1, oldestSchedulableReadyAgeMs: 2000, activeWorkers: 4, busyWorkers: 3 },
    {},
    [1, 4, 0, 5],
    5,
    5,
  ],
  // U = 2: every pressure fed by ready sessions rounds up; the subagent reserve is not divided by U.
  [
    "U = 2 rounds queue up",
    { readySessionCount: 3 },
    { readySessionsPerCapacityUnit: 2 },
    [2, 2, 0, 0],
    2,
    2,
  ],
  [
    "U = 2 rounds saturation up",
    { readySessionCount: 3, activeWorkers: 2, busyWorkers: 2 },
    { readySessionsPerCapacityUnit: 2 },
    [2, 3, 0, 0],
    3,
    3,
  ],
  [
    "U = 2 leaves the subagent reserve whole",
    { readySessionCount: 2, subagentReadySessionCount: 2, activeWorkers: 4, busyWorkers: 4 },
    { readySessionsPerCapacityUnit: 2 },
    [1, 3, 5, 0],
    5,
    5,
  ],
  [
    "no subagent reserve without ready subagent sessions",
    { readySessionCount: 1, activeWorkers: 4, busyWorkers: 4 },
    { reservedSubagentCapacity: 3 },
    [1, 5, 0, 0],
    5,
    5,
  ],
  [
    "subagent reserve with nothing busy is the reserved capacity",
    { readySessionCount: 0, subagentReadySessionCount: 1 },
    {},
    [0, 0, 1, 0],
    1,
    1,
  ],
  [
    "no age pressure below the busy ratio",
    { readySessionCount: 1, oldestSchedulableReadyAgeMs: 60_000, activeWorkers: 4, busyWorkers: 2 },
    {},
    [1, 3, 0, 0],
    3,
    3,
  ],
  [
    "no age pressure below the age threshold",
    { readySessionCount: 1, oldestSchedulableReadyAgeMs: 1999, activeWorkers: 4, busyWorkers: 4 },
    {},
    [1, 5, 0, 0],
    5,
    5,
  ],
  [
    "no age pressure without active workers",
    { readySessionCount: 1, oldestSchedulableReadyAgeMs: 60_000 },
    {},
    [1, 1, 0, 0],
    1,
    1,
  ],
  [
    "registry: 3 healthy remote workers are subtracted",
    { readySessionCount: 2, activeWorkers: 1, busyWorkers: 1, global: registry(4, 3, 3, 2) },
    { min: 1, max: 4 },
    [2, 5, 0, 0],
    5,
    2,
  ],
  [
    "registry: busy/active are the global figures",
    {
      readySessionCount: 1,
      oldestSchedulableReadyAgeMs: 5000,
      activeWorkers: 2,
      busyWorkers: 0,
      idleWorkers: 2,
      global: registry(6, 6, 4, 4),
    },
    {},
    [1, 7, 0, 7],
    7,
    3,
  ],
  [
    "registry: clamped to min when remote capacity covers it",
    { readySessionCount: 2, global: registry(9, 3, 8, 3) },
    { min: 1, max: 4 },
    [2, 5, 0, 0],
    5,
    1,
  ],
  ["clamped to max", { readySessionCount: 20 }, { min: 1, max: 4 }, [20, 20, 0, 0], 20, 4],
  ["clamped to min", { readySessionCount: 1 }, { min: 3, max: 4 }, [1, 1, 0, 0], 1, 3],
];

describe("pool size suggestion", () => {
  it.each(TABLE)("%s", (_name, over, cfg, [queue, saturation, subagentReserve, age], global, local) => {
    const suggestion = suggestPoolSize(signals(over), config(cfg));
    expect(suggestion.pressures).toEqual({ queue, saturation, subagentReserve, age });
    expect(suggestion.globalSuggested).toBe(global);
    expect(suggestion.localSuggested).toBe(local);
  });
});

// name, signals, [availableIdleCapacity, readySessionsPerActiveWorker, subagentReserveTarget, deficit]
type DerivedRow = [string, Partial<PoolSignals>, [number, number, number, number]];

const DERIVED: DerivedRow[] = [
  ["empty pool divides by 1", { readySessionCount: 3 }, [0, 3, 0, 0]],
  [
    "local figures without a registry",
    { readySessionCount: 2, subagentReadySessionCount: 1, activeWorkers: 3, busyWorkers: 2, idleWorkers: 1 },
    [1, 0.67, 3, 0],
  ],
  [
    "global figures with a registry, deficit when the reserve exceeds active",
    {
      readySessionCount: 2,
      subagentReadySessionCount: 1,
      activeWorkers: 1,
      busyWorkers: 1,
      global: registry(3, 3, 2, 2),
    },
    [0, 0.67, 4, 1],
  ],
  ["rounded to 2 decimals", { readySessionCount: 1, activeWorkers: 8, idleWorkers: 8 }, [8, 0.13, 0, 0]],
];

describe("pool health derived fields", () => {
  it.each(DERIVED)("%s", (_name, over, [idle, perActive, target, deficit]) => {
    expect(suggestPoolSize(signals(over), config())).toMatchObject({
      availableIdleCapacity: idle,
      readySessionsPerActiveWorker: perActive,
      subagentReserveTarget: target,
      subagentReserveDeficit: deficit,
    });
  });
});

// now, suggested → reason, desired, upStreak, downStreak (default hysteresis: windows 2/3, cooldowns 1 s/15 s)
type Step = [number, number, RebalanceReason, number, number, number];

const STEPS: Step[] = [
  [0, 2, "startup", 2, 0, 0], // start-up jumps, no sample window
  [500, 4, "cooldown_hold", 2, 1, 0], // one up sample is not enough
  [1000, 4, "scale_up", 4, 0, 0], // two agreeing samples and 1 s since start-up
  [1200, 6, "cooldown_hold", 4, 1, 0],
  [1400, 6, "cooldown_hold", 4, 2, 0], // window met, but only 400 ms since the last change
  [2000, 6, "scale_up", 6, 0, 0],
  [3000, 6, "steady", 6, 0, 0],
  [4000, 3, "cooldown_hold", 6, 0, 1],
  [5000, 3, "cooldown_hold", 6, 0, 2],
  [6000, 8, "cooldown_hold", 6, 1, 0], // an up sample breaks the down streak
  [7000, 3, "cooldown_hold", 6, 0, 1], // ... and a down sample breaks the up streak
  [8000, 3, "cooldown_hold", 6, 0, 2],
  [9000, 3, "cooldown_hold", 6, 0, 3], // window met, but only 7 s since the last change
  [16_999, 3, "cooldown_hold", 6, 0, 4],
  [17_000, 3, "scale_down", 3, 0, 0], // 15 s since the last change
  [18_000, 7, "cooldown_hold", 3, 1, 0],
  [19_000, 6, "scale_up", 6, 0, 0], // samples agree on the direction; the latest suggestion applies
  [20_000, 5, "cooldown_hold", 6, 0, 1],
  [21_000, 6, "steady", 6, 0, 0], // a steady sample resets the streaks too
  [22_000, 5, "cooldown_hold", 6, 0, 1],
];

function replay(steps: Step[]): Rebalance[] {
  let state: RebalanceState = INITIAL_REBALANCE_STATE;
  return steps.map(([now, suggested]) => {
    const step = rebalance(state, suggested, now, DEFAULT_HYSTERESIS);
    state = step.state;
    return step;
  });
}

describe("rebalance hysteresis", () => {
  const results = replay(STEPS);

  it.each(STEPS.map((step, i) => [i, ...step] as const))(
    "step %i: t=%i suggested %i → %s, desired %i (streaks up %i, down %i)",
    (i, _now, _suggested, reason, desired, upStreak, downStreak) => {
      const step = results[i]!;
      expect(step.reason).toBe(reason);
      expect(step.desired).toBe(desired);
      expect(step.state).toMatchObject({ desired, upStreak, downStreak });
      expect(step.previousDesired).toBe(i === 0 ? null : results[i - 1]!.desired);
    },
  );

  it("records the time of the last change of desired capacity only", () => {
    expect(results.map((step) => step.state.lastChangeAt)).toEqual([
      0, 0, 1000, 1000, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 17_000, 17_000, 19_000,
      19_000, 19_000, 19_000,
    ]);
  });

  // index into STEPS, upCooldownRemainingMs, downCooldownRemainingMs
  it.each([
    [0, 1000, 15_000],
    [1, 500, 14_500],
    [4, 600, 14_600],
    [12, 0, 8000],
    [14, 1000, 15_000],
  ])("step %i: cooldowns remaining up %i ms, down %i ms", (i, up, down) => {
    expect(results[i]).toMatchObject({ upCooldownRemainingMs: up, downCooldownRemainingMs: down });
  });

  it("shuts down to 0 from any state, bypassing windows and cooldowns", () => {
    const last = results.at(-1)!;
    expect(shutdownRebalance(last.state, 22_500)).toEqual({
      state: { desired: 0, upStreak: 0, downStreak: 0, lastChangeAt: 22_500 },
      reason: "shutdown",
      previousDesired: 6,
      desired: 0,
      upCooldownRemainingMs: 0,
      downCooldownRemainingMs: 0,
    });
    expect(shutdownRebalance(INITIAL_REBALANCE_STATE, 5)).toMatchObject({
      previousDesired: null,
      desired: 0,
    });
  });

  it("a shutdown of an empty pool is not a change of capacity", () => {
    const empty: RebalanceState = { desired: 0, upStreak: 1, downStreak: 0, lastChangeAt: 100 };
    expect(shutdownRebalance(empty, 900).state).toEqual({
      desired: 0,
      upStreak: 0,
      downStreak: 0,
      lastChangeAt: 100,
    });
  });

  it("does not mutate the state it is given", () => {
    const frozen = Object.freeze({ ...INITIAL_REBALANCE_STATE });
    expect(rebalance(frozen, 3, 50, DEFAULT_HYSTERESIS)).toMatchObject({
      reason: "startup",
      desired: 3,
      state: { desired: 3, lastChangeAt: 50 },
    });
    expect(INITIAL_REBALANCE_STATE).toEqual({
      desired: null,
      upStreak: 0,
      downStreak: 0,
      lastChangeAt: null,
    });
  });

  it("a state with no recorded change has no cooldown to wait for", () => {
    const noChangeYet: RebalanceState = { desired: 2, upStreak: 0, downStreak: 0, lastChangeAt: null };
    expect(rebalance(noChangeYet, 5, 0, { ...DEFAULT_HYSTERESIS, upSampleWindow: 1 })).toMatchObject({
      reason: "scale_up",
      desired: 5,
    });
    expect(rebalance(noChangeYet, 2, 0, DEFAULT_HYSTERESIS)).toMatchObject({
      reason: "steady",
      upCooldownRemainingMs: 0,
      downCooldownRemainingMs: 0,
    });
  });
});

type Decision = { at: number } & Record<string, unknown>;

// name, same decision?, a, b
const DECISIONS: [string, boolean, Decision, Decision][] = [
  [
    "only the time differs",
    true,
    { at: 1, reason: "steady", desired: 2 },
    { at: 9, reason: "steady", desired: 2 },
  ],
  ["key order does not matter", true, { at: 1, a: 1, b: 2 }, { b: 2, a: 1, at: 2 }],
  ["nested objects compared deeply", true, { at: 1, p: { q: [1, 2] } }, { at: 2, p: { q: [1, 2] } }],
  ["undefined counts as absent", true, { at: 1, x: undefined, y: 1 }, { at: 2, y: 1 }],
  ["reason differs", false, { at: 1, reason: "steady" }, { at: 1, reason: "cooldown_hold" }],
  ["nested value differs", false, { at: 1, p: { q: [1, 2] } }, { at: 1, p: { q: [1, 3] } }],
  ["extra key", false, { at: 1, desired: 2 }, { at: 1, desired: 2, previousDesired: 1 }],
  ["null is not an object", false, { at: 1, g: null }, { at: 1, g: {} }],
  ["array is not an object", false, { at: 1, g: [] }, { at: 1, g: {} }],
];

describe("sameDecision", () => {
  it.each(DECISIONS)("%s → same: %s", (_name, expected, a, b) => {
    expect(sameDecision(a, b)).toBe(expected);
    expect(sameDecision(b, a)).toBe(expected);
  });
});
