// @module-tag unit

import type { WorkerState } from "@oah/contract";
import {
  DEFAULT_POOL_SIZING,
  type HostState,
  INITIAL_REBALANCE_STATE,
  NO_QUEUE_PRESSURE,
  type PoolGlobalSignals,
  rebalance,
  suggestPoolSize,
} from "@oah/core";
import { describe, expect, it } from "vitest";
import { type PoolFacts, poolSnapshot, type WorkerFacts } from "../src/pool/pool-snapshot";

const HYSTERESIS = { upSampleWindow: 1, downSampleWindow: 1, upCooldownMs: 0, downCooldownMs: 0 };
const REMOTE: PoolGlobalSignals = {
  globalActiveWorkers: 7,
  globalBusyWorkers: 5,
  remoteActiveWorkers: 4,
  remoteBusyWorkers: 3,
};

/**
 * A tick of a pool of 1–8 workers with `ready` sessions waiting, `busy` of its `active` workers
 * busy, and `retiring` more told to stop while they end their run.
 */
function facts(over: {
  hostState?: HostState;
  global?: PoolGlobalSignals | null;
  ready?: number;
  active?: number;
  busy?: number;
  retiring?: number;
}): PoolFacts {
  const { hostState = "active", global = null, ready = 0, active = 2, busy = 1, retiring = 0 } = over;
  const worker = (n: number, state: WorkerState, stopRequested: boolean): WorkerFacts => ({
    id: `h/w${n}`,
    state,
    stopRequested,
    current: state === "busy" ? { sessionId: `s${n}`, runId: `run_${n}` } : null,
  });
  const workers = [
    ...Array.from({ length: retiring }, (_, i) => worker(i, "busy", true)),
    ...Array.from({ length: active }, (_, i) => worker(retiring + i, i < busy ? "busy" : "idle", false)),
  ];
  const pressure = { ...NO_QUEUE_PRESSURE, readySessionCount: ready, uniqueReadySessionCount: ready };
  const suggestion = suggestPoolSize(
    { ...pressure, activeWorkers: active, busyWorkers: busy, idleWorkers: active - busy, global },
    { min: 1, max: 8, ...DEFAULT_POOL_SIZING },
  );
  return {
    hostId: "h",
    processKind: "standalone",
    hostState,
    commands: { available: true },
    at: 1_000,
    intervalMs: 1_000,
    min: 1,
    max: 8,
    pressure,
    global,
    suggestion,
    step: rebalance(INITIAL_REBALANCE_STATE, suggestion.localSuggested, 1_000, HYSTERESIS),
    workers,
    queueWaitP50Ms: null,
    queueWaitP95Ms: null,
    lastRebalanceAt: null,
    lastRebalanceReason: null,
  };
}

describe("a pool's snapshot", () => {
  it.each([
    // host state, ready sessions, active, busy, retiring, desired, busy/idle slots
    ["active", 0, 2, 1, 0, 1, 1, 1],
    ["active", 5, 2, 2, 0, 7, 2, 0],
    ["active", 0, 1, 0, 2, 1, 0, 1],
    ["cordoned", 5, 2, 2, 0, 0, 2, 0],
    ["draining", 5, 3, 1, 0, 0, 1, 2],
    ["drained", 0, 0, 0, 1, 0, 0, 0],
  ] as const)(
    "of a host %s with %i ready sessions and %i workers, %i busy, %i retiring: desires %i, busy %i, idle %i",
    (hostState, ready, active, busy, retiring, desired, busySlots, idleSlots) => {
      const snapshot = poolSnapshot(facts({ hostState, ready, active, busy, retiring }));
      expect(snapshot).toMatchObject({
        state: hostState,
        desired,
        activeWorkers: active,
        slotCapacity: active,
        busyWorkers: busySlots,
        busySlots,
        idleWorkers: idleSlots,
        idleSlots,
      });
      // Every worker keeps its slot until it has ended, a retiring one too.
      expect(snapshot.slots).toHaveLength(active + retiring);
      expect(snapshot.slots.filter((slot) => slot.runId !== null)).toHaveLength(busy + retiring);
    },
  );

  it("shows the fleet's figures with a registry, and none without", () => {
    expect(poolSnapshot(facts({ global: REMOTE }))).toMatchObject(REMOTE);
    expect(poolSnapshot(facts({ global: null }))).toMatchObject({
      globalActiveWorkers: null,
      globalBusyWorkers: null,
      remoteActiveWorkers: null,
      remoteBusyWorkers: null,
    });
  });
});
