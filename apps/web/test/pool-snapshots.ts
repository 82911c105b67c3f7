import type { PoolSample, PoolSnapshot } from "@oah/contract";
import { NO_QUEUE_PRESSURE } from "@oah/core";

/** A host's snapshot with plausible figures, changed where a test says so. */
export function snapshot(
  change: Partial<Omit<PoolSnapshot, "pressure">> & { pressure?: Partial<PoolSnapshot["pressure"]> } = {},
): PoolSnapshot {
  const { pressure, ...rest } = change;
  return {
    hostId: "host-a",
    processKind: "standalone",
    state: "active",
    commands: { available: true },
    at: 1_000,
    intervalMs: 1_000,
    min: 1,
    max: 4,
    pressure: { ...NO_QUEUE_PRESSURE, ...pressure },
    busyWorkers: 0,
    idleWorkers: 1,
    activeWorkers: 1,
    slotCapacity: 4,
    busySlots: 0,
    idleSlots: 1,
    globalActiveWorkers: null,
    globalBusyWorkers: null,
    remoteActiveWorkers: 0,
    remoteBusyWorkers: null,
    pressures: { queue: 0, saturation: 0, subagentReserve: 0, age: 0 },
    suggested: 1,
    globalSuggested: 1,
    desired: 1,
    availableIdleCapacity: 1,
    readySessionsPerActiveWorker: 0,
    subagentReserveTarget: 0,
    subagentReserveDeficit: 0,
    queueWaitP50Ms: null,
    queueWaitP95Ms: null,
    lastRebalanceAt: null,
    lastRebalanceReason: null,
    upStreak: 0,
    downStreak: 0,
    upCooldownRemainingMs: 0,
    downCooldownRemainingMs: 0,
    slots: [],
    ...rest,
  };
}

export function sample(at: number, change: Partial<PoolSample> = {}): PoolSample {
  return {
    at,
    readySessionCount: 0,
    busyWorkers: 0,
    idleWorkers: 0,
    desired: 0,
    queueWaitP50Ms: null,
    queueWaitP95Ms: null,
    ...change,
  };
}
