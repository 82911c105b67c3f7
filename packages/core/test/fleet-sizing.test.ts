// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  decideFleetSize,
  type FleetHost,
  type FleetSignals,
  type FleetSizingConfig,
  type HysteresisConfig,
  INITIAL_REBALANCE_STATE,
  keepDecision,
  type RebalanceState,
  sameFleetDecision,
  scaleDownBlocker,
  suggestFleetSize,
} from "../src";

const config: FleetSizingConfig = { minReplicas: 1, maxReplicas: 4, slotsPerSandbox: 4 };
const hysteresis: HysteresisConfig = {
  upSampleWindow: 2,
  downSampleWindow: 3,
  upCooldownMs: 1000,
  downCooldownMs: 10_000,
};

const host = (over: Partial<FleetHost> = {}): FleetHost => ({
  hostId: "h",
  state: "active",
  healthy: true,
  busySlots: 0,
  ...over,
});
const signals = (over: Partial<FleetSignals> = {}): FleetSignals => ({
  readySessionCount: 0,
  subagentReadySessionCount: 0,
  oldestSchedulableReadyAgeMs: 0,
  activeWorkers: 4,
  busyWorkers: 0,
  hosts: [host()],
  ...over,
});

describe("suggestFleetSize", () => {
  // [case, signals, expected replicas]
  const cases: [string, Partial<FleetSignals>, number][] = [
    ["nothing waiting: the minimum", {}, 1],
    ["ready sessions fill sandboxes of 4 slots, rounded up", { readySessionCount: 9 }, 3],
    ["busy workers count with the ready sessions (saturation)", { readySessionCount: 3, busyWorkers: 4 }, 2],
    ["never above the maximum", { readySessionCount: 300 }, 4],
    [
      "a waiting subagent reserves one more worker",
      { subagentReadySessionCount: 1, readySessionCount: 1, busyWorkers: 4 },
      2,
    ],
    [
      "old work on a saturated fleet asks for one more worker",
      { readySessionCount: 1, busyWorkers: 8, activeWorkers: 8, oldestSchedulableReadyAgeMs: 5_000 },
      3,
    ],
  ];
  it.each(cases)("%s", (_case, over, replicas) => {
    expect(suggestFleetSize(signals(over), config).replicas).toBe(replicas);
  });

  it("never below the minimum, whatever the slots", () => {
    expect(suggestFleetSize(signals(), { ...config, minReplicas: 2 }).replicas).toBe(2);
  });
});

describe("scaleDownBlocker", () => {
  const cases: [string, FleetHost[], number, string | null][] = [
    ["nothing holds a scale-down", [host(), host()], 1, null],
    ["a draining host", [host({ state: "draining" }), host()], 1, "host_draining"],
    ["a host that is late", [host({ healthy: false }), host()], 1, "host_unhealthy"],
    [
      "busy slots a smaller fleet could not hold",
      [host({ busySlots: 4 }), host({ busySlots: 1 })],
      1,
      "busy_slots",
    ],
    ["busy slots that fit", [host({ busySlots: 3 }), host({ busySlots: 1 })], 1, null],
  ];
  it.each(cases)("%s", (_case, hosts, desired, blocker) => {
    expect(scaleDownBlocker(hosts, desired, 4)).toBe(blocker);
  });
});

describe("decideFleetSize over time", () => {
  /** Feeds samples one per second from t=0, returning each decision's reason and desired replicas. */
  function run(samples: Partial<FleetSignals>[], start: RebalanceState = INITIAL_REBALANCE_STATE) {
    let state = start;
    return samples.map((over, i) => {
      const step = decideFleetSize(state, signals(over), i * 1000, config, hysteresis);
      state = step.state;
      return [step.decision.reason, step.decision.desiredReplicas, step.decision.blockedBy] as const;
    });
  }

  it("starts at what the pressure asks for, then holds for the up window before scaling up", () => {
    expect(
      run([{}, { readySessionCount: 16 }, { readySessionCount: 16 }, { readySessionCount: 16 }]),
    ).toEqual([
      ["startup", 1, null],
      ["cooldown_hold", 1, null],
      ["scale_up", 4, null],
      ["steady", 4, null],
    ]);
  });

  it("scales down only after its window and cooldown, and waits while a blocker holds", () => {
    const busy = [host({ busySlots: 4 }), host({ busySlots: 4 })];
    const idle = [host(), host()];
    const decisions = run([
      { readySessionCount: 8 },
      ...Array.from({ length: 10 }, () => ({ hosts: busy })),
      { hosts: idle },
    ]);
    expect(decisions[0]).toEqual(["startup", 2, null]);
    // The down window and cooldown pass (10 s), but 8 busy slots need two sandboxes of 4.
    expect(decisions.slice(1, 11).map(([reason]) => reason)).toEqual([
      ...Array(9).fill("cooldown_hold"),
      "blocked",
    ]);
    expect(decisions[10]).toEqual(["blocked", 2, "busy_slots"]);
    // Once the slots are free, the scale-down goes ahead at once: its streak was kept.
    expect(decisions[11]).toEqual(["scale_down", 1, null]);
  });

  it("records the figures and the replicas it saw with each decision", () => {
    const step = decideFleetSize(
      INITIAL_REBALANCE_STATE,
      signals({
        readySessionCount: 5,
        busyWorkers: 2,
        hosts: [host({ busySlots: 2 }), host({ state: "drained" })],
      }),
      42,
      config,
      hysteresis,
    );
    expect(step.decision).toMatchObject({
      at: 42,
      reason: "startup",
      previousDesired: null,
      desiredReplicas: 2,
      suggestedReplicas: 2,
      actualReplicas: 1,
      figures: { readySessionCount: 5, busyWorkers: 2, busySlots: 2 },
    });
  });
});

describe("keepDecision", () => {
  it("keeps distinct decisions only, the last 50", () => {
    const log: { at: number; reason: string }[] = [];
    expect(keepDecision(log, { at: 1, reason: "startup" })).toBe(true);
    expect(keepDecision(log, { at: 2, reason: "startup" })).toBe(false);
    for (let i = 0; i < 60; i++)
      keepDecision(log, { at: 10 + i, reason: i % 2 ? "steady" : "cooldown_hold" });
    expect(log).toHaveLength(50);
    expect(log[49]).toEqual({ at: 69, reason: "steady" });
    expect(log[0]).toEqual({ at: 20, reason: "cooldown_hold" });
  });
});

describe("sameFleetDecision", () => {
  const base = decideFleetSize(INITIAL_REBALANCE_STATE, signals(), 0, config, hysteresis).decision;
  const busier = { ...base, at: 5, figures: { ...base.figures, readySessionCount: 7, busySlots: 3 } };
  it.each([
    ["the same decision on other figures", busier, true],
    ["another reason", { ...base, reason: "steady" as const }, false],
    ["another desired size", { ...base, desiredReplicas: 2 }, false],
    ["another blocker", { ...base, reason: "blocked" as const, blockedBy: "busy_slots" as const }, false],
    ["another actual size", { ...base, actualReplicas: 3 }, false],
  ])("%s: %s", (_, other, same) => {
    expect(sameFleetDecision(base, other)).toBe(same);
  });

  it("keeps one decision for a run of ticks that decide the same on moving figures", () => {
    const log = [base];
    expect(keepDecision(log, busier, 50, sameFleetDecision)).toBe(false);
    expect(keepDecision(log, { ...busier, reason: "steady" }, 50, sameFleetDecision)).toBe(true);
    expect(log.map((d) => d.reason)).toEqual(["startup", "steady"]);
  });
});
