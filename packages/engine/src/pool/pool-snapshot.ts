import type { PoolSnapshot, WorkerState } from "@oah/contract";
import type { HostState, PoolGlobalSignals, PoolSuggestion, Rebalance } from "@oah/core";

/** What the snapshot reads of one worker of the pool. */
export interface WorkerFacts {
  id: string;
  state: WorkerState;
  /** Told to stop (retired, or the host claims nothing): it ends after its run in hand. */
  stopRequested: boolean;
  current: { sessionId: string; runId: string } | null;
}

/** Everything one tick of a pool knows, from which its snapshot is made. */
export interface PoolFacts
  extends Pick<
    PoolSnapshot,
    | "hostId"
    | "processKind"
    | "commands"
    | "at"
    | "intervalMs"
    | "min"
    | "max"
    | "pressure"
    | "queueWaitP50Ms"
    | "queueWaitP95Ms"
    | "lastRebalanceAt"
    | "lastRebalanceReason"
  > {
  hostState: HostState;
  /** The registry's figures of every host; null without one. */
  global: PoolGlobalSignals | null;
  suggestion: PoolSuggestion;
  /** The hysteresis's step of this tick; its desired size holds only while the host claims. */
  step: Rebalance;
  /** The pool's workers once this tick's sizing is applied, oldest first. */
  workers: readonly WorkerFacts[];
}

/**
 * The health snapshot of one host's pool (docs/spec.md §8), as the console, the controller and
 * the metrics read it: the pool after this tick's sizing. A host that is not `active` claims
 * nothing, so it desires no worker whatever the hysteresis says.
 */
export function poolSnapshot(facts: PoolFacts): PoolSnapshot {
  const { global, suggestion, step } = facts;
  // Workers told to stop are the pool's no more, though they may still end a run.
  const claiming = facts.workers.filter((w) => !w.stopRequested);
  const active = claiming.length;
  const busy = claiming.filter((w) => w.state === "busy").length;
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
    slots: slotsOf(facts.workers),
  };
}

/** Each worker's slot: its state, and the session and run in hand. */
export function slotsOf(workers: readonly WorkerFacts[]): PoolSnapshot["slots"] {
  return workers.map((w) => ({
    id: w.id,
    state: w.state,
    sessionId: w.current?.sessionId ?? null,
    runId: w.current?.runId ?? null,
  }));
}
