import type { PoolSnapshot, ProcessKind } from "@oah/contract";
import type {
  CommandsAvailability,
  HostState,
  PoolGlobalSignals,
  PoolSuggestion,
  QueuePressure,
  Rebalance,
  RebalanceReason,
} from "@oah/core";

/** Everything one tick of a pool knows, from which its snapshot is made. */
export interface PoolFacts {
  hostId: string;
  processKind: ProcessKind;
  hostState: HostState;
  commands: CommandsAvailability;
  at: number;
  intervalMs: number;
  min: number;
  max: number;
  pressure: QueuePressure;
  /** The registry's figures of every host; null without one. */
  global: PoolGlobalSignals | null;
  suggestion: PoolSuggestion;
  /** The hysteresis's step of this tick; its desired size holds only while the host claims. */
  step: Rebalance;
  /** The workers that may claim (none told to stop), and how many of them are busy, once this tick's sizing is applied. */
  workers: { active: number; busy: number };
  slots: PoolSnapshot["slots"];
  queueWaitP50Ms: number | null;
  queueWaitP95Ms: number | null;
  lastRebalanceAt: number | null;
  lastRebalanceReason: RebalanceReason | null;
}

/**
 * The health snapshot of one host's pool (docs/spec.md §8), as the console, the controller and
 * the metrics read it: the pool after this tick's sizing. A host that is not `active` claims
 * nothing, so it desires no worker whatever the hysteresis says.
 */
export function poolSnapshot(facts: PoolFacts): PoolSnapshot {
  const { global, suggestion, step } = facts;
  const { active, busy } = facts.workers;
  return {
    hostId: facts.hostId,
    processKind: facts.processKind,
    state: facts.hostState,
    commands: facts.commands,
    at: facts.at,
    intervalMs: facts.intervalMs,
    min: facts.min,
    max: facts.max,
    pressure: facts.pressure,
    busyWorkers: busy,
    idleWorkers: active - busy,
    activeWorkers: active,
    slotCapacity: active,
    busySlots: busy,
    idleSlots: active - busy,
    globalActiveWorkers: global?.globalActiveWorkers ?? null,
    globalBusyWorkers: global?.globalBusyWorkers ?? null,
    remoteActiveWorkers: global?.remoteActiveWorkers ?? null,
    remoteBusyWorkers: global?.remoteBusyWorkers ?? null,
    pressures: suggestion.pressures,
    suggested: suggestion.localSuggested,
    globalSuggested: suggestion.globalSuggested,
    desired: facts.hostState === "active" ? step.desired : 0,
    availableIdleCapacity: suggestion.availableIdleCapacity,
    readySessionsPerActiveWorker: suggestion.readySessionsPerActiveWorker,
    subagentReserveTarget: suggestion.subagentReserveTarget,
    subagentReserveDeficit: suggestion.subagentReserveDeficit,
    queueWaitP50Ms: facts.queueWaitP50Ms,
    queueWaitP95Ms: facts.queueWaitP95Ms,
    lastRebalanceAt: facts.lastRebalanceAt,
    lastRebalanceReason: facts.lastRebalanceReason,
    upStreak: step.state.upStreak,
    downStreak: step.state.downStreak,
    upCooldownRemainingMs: step.upCooldownRemainingMs,
    downCooldownRemainingMs: step.downCooldownRemainingMs,
    slots: facts.slots,
  };
}
