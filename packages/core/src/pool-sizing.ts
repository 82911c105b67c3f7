/**
 * Worker pool sizing (docs/spec.md §8): the pure policy. Signals and the clock are inputs, so the
 * host owns timers, I/O and the registry; this file only decides.
 */
import type { QueuePressure } from "./queue-pressure";

export interface PoolSizingConfig {
  min: number;
  max: number;
  /** U: ready sessions one unit of capacity is expected to absorb. */
  readySessionsPerCapacityUnit: number;
  reservedSubagentCapacity: number;
  busyRatioThreshold: number;
  ageThresholdMs: number;
}

export const DEFAULT_POOL_SIZING: Omit<PoolSizingConfig, "min" | "max"> = {
  readySessionsPerCapacityUnit: 1,
  reservedSubagentCapacity: 1,
  busyRatioThreshold: 0.75,
  ageThresholdMs: 2000,
};

export interface PoolGlobalSignals {
  globalActiveWorkers: number;
  globalBusyWorkers: number;
  remoteActiveWorkers: number;
  remoteBusyWorkers: number;
}

/** The figures of the queue's pressure read (docs/spec.md §5) that the pool's and the fleet's policies weigh. */
export type WeighedPressure = Pick<
  QueuePressure,
  "readySessionCount" | "subagentReadySessionCount" | "oldestSchedulableReadyAgeMs"
>;

/** The queue's figures and the pool's, that the policy weighs. */
export interface PoolSignals extends WeighedPressure {
  /** Local workers not stopping (idle + busy + starting). */
  activeWorkers: number;
  busyWorkers: number;
  idleWorkers: number;
  /** From the worker registry (healthy leases only); null without a registry (in-process mode). */
  global: PoolGlobalSignals | null;
}

export interface PoolPressures {
  queue: number;
  saturation: number;
  subagentReserve: number;
  age: number;
}

export interface PoolSuggestion {
  pressures: PoolPressures;
  globalSuggested: number;
  localSuggested: number;
  /** Local idle workers. */
  availableIdleCapacity: number;
  /** readySessionCount per active worker (global with a registry), rounded to 2 decimals. */
  readySessionsPerActiveWorker: number;
  subagentReserveTarget: number;
  subagentReserveDeficit: number;
}

const clamp = (value: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, value));
const round2 = (value: number): number => Math.round(value * 100) / 100;

/**
 * Suggested capacity for the whole fleet and for this host. With a registry, busy/active are
 * fleet-wide, because the queue is shared; this host then only covers what remote hosts do not.
 */
export function suggestPoolSize(signals: PoolSignals, config: PoolSizingConfig): PoolSuggestion {
  const { readySessionCount: ready, global } = signals;
  const unit = config.readySessionsPerCapacityUnit;
  const active = global ? global.globalActiveWorkers : signals.activeWorkers;
  const busy = global ? global.globalBusyWorkers : signals.busyWorkers;
  const remoteActive = global ? global.remoteActiveWorkers : 0;

  // Age pressure adds one worker only when the pool is mostly busy AND work is waiting too long:
  // an old session alone may just be locked behind its own running turn.
  const saturated = active > 0 && busy / active >= config.busyRatioThreshold;
  const pressures: PoolPressures = {
    queue: Math.ceil(ready / unit),
    saturation: Math.ceil((ready + busy) / unit),
    subagentReserve: signals.subagentReadySessionCount > 0 ? busy + config.reservedSubagentCapacity : 0,
    age: saturated && signals.oldestSchedulableReadyAgeMs >= config.ageThresholdMs ? active + 1 : 0,
  };
  const globalSuggested = Math.max(
    pressures.queue,
    pressures.saturation,
    pressures.subagentReserve,
    pressures.age,
  );
  const localSuggested = clamp(Math.max(config.min, globalSuggested - remoteActive), config.min, config.max);

  return {
    pressures,
    globalSuggested,
    localSuggested,
    availableIdleCapacity: signals.idleWorkers,
    readySessionsPerActiveWorker: round2(ready / Math.max(1, active)),
    subagentReserveTarget: pressures.subagentReserve,
    subagentReserveDeficit: Math.max(0, pressures.subagentReserve - active),
  };
}

export const REBALANCE_REASONS = [
  "startup",
  "scale_up",
  "scale_down",
  "cooldown_hold",
  "steady",
  "shutdown",
] as const;
export type RebalanceReason = (typeof REBALANCE_REASONS)[number];

export interface HysteresisConfig {
  /** Consecutive samples above the desired capacity before scaling up. */
  upSampleWindow: number;
  /** Consecutive samples below the desired capacity before scaling down. */
  downSampleWindow: number;
  /** Minimum time since the last change of desired capacity before scaling up. */
  upCooldownMs: number;
  /** Minimum time since the last change of desired capacity before scaling down. */
  downCooldownMs: number;
}

export const DEFAULT_HYSTERESIS: HysteresisConfig = {
  upSampleWindow: 2,
  downSampleWindow: 3,
  upCooldownMs: 1000,
  downCooldownMs: 15_000,
};

export interface RebalanceState {
  /** null before the first decision (start-up). */
  desired: number | null;
  upStreak: number;
  downStreak: number;
  /** Epoch ms of the last change of desired capacity. */
  lastChangeAt: number | null;
}

export const INITIAL_REBALANCE_STATE: RebalanceState = {
  desired: null,
  upStreak: 0,
  downStreak: 0,
  lastChangeAt: null,
};

export interface Rebalance {
  state: RebalanceState;
  reason: RebalanceReason;
  previousDesired: number | null;
  desired: number;
  upCooldownRemainingMs: number;
  downCooldownRemainingMs: number;
}

const remaining = (cooldownMs: number, lastChangeAt: number | null, now: number): number =>
  lastChangeAt === null ? 0 : Math.max(0, cooldownMs - (now - lastChangeAt));

/**
 * One hysteresis step. Scaling up is quick (short window and cooldown) so waiting work gets a
 * worker; scaling down is slow so a brief lull does not stop workers that are needed again soon.
 * Remaining cooldowns are reported against the resulting state.
 */
export function rebalance(
  state: RebalanceState,
  suggested: number,
  now: number,
  config: HysteresisConfig,
): Rebalance {
  const previousDesired = state.desired;
  const result = (next: RebalanceState, reason: RebalanceReason): Rebalance => ({
    state: next,
    reason,
    previousDesired,
    desired: next.desired ?? suggested,
    upCooldownRemainingMs: remaining(config.upCooldownMs, next.lastChangeAt, now),
    downCooldownRemainingMs: remaining(config.downCooldownMs, next.lastChangeAt, now),
  });
  const changed = (reason: RebalanceReason): Rebalance =>
    result({ desired: suggested, upStreak: 0, downStreak: 0, lastChangeAt: now }, reason);

  // No sample window at start-up: the pool jumps straight to what the queue needs.
  if (previousDesired === null) return changed("startup");
  if (suggested === previousDesired) return result({ ...state, upStreak: 0, downStreak: 0 }, "steady");

  const elapsed = state.lastChangeAt === null ? Number.POSITIVE_INFINITY : now - state.lastChangeAt;
  if (suggested > previousDesired) {
    // An up sample breaks any down streak: consecutive samples must agree.
    const upStreak = state.upStreak + 1;
    if (upStreak >= config.upSampleWindow && elapsed >= config.upCooldownMs) return changed("scale_up");
    return result({ ...state, upStreak, downStreak: 0 }, "cooldown_hold");
  }
  const downStreak = state.downStreak + 1;
  if (downStreak >= config.downSampleWindow && elapsed >= config.downCooldownMs) return changed("scale_down");
  return result({ ...state, upStreak: 0, downStreak }, "cooldown_hold");
}

/** Shutdown bypasses windows and cooldowns; no later decision follows, so no cooldown remains. */
export function shutdownRebalance(state: RebalanceState, now: number): Rebalance {
  return {
    state: {
      desired: 0,
      upStreak: 0,
      downStreak: 0,
      lastChangeAt: state.desired === 0 ? state.lastChangeAt : now,
    },
    reason: "shutdown",
    previousDesired: state.desired,
    desired: 0,
    upCooldownRemainingMs: 0,
    downCooldownRemainingMs: 0,
  };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  // Keys holding undefined count as absent, as they would once the log is serialised.
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  const keysA = Object.keys(recordA).filter((key) => recordA[key] !== undefined);
  const keysB = Object.keys(recordB).filter((key) => recordB[key] !== undefined);
  return keysA.length === keysB.length && keysA.every((key) => deepEqual(recordA[key], recordB[key]));
}

/** How many distinct decisions a pool or the controller keeps (docs/spec.md §8). */
export const MAX_DECISIONS = 50;

/**
 * Appends a decision to a log of distinct decisions, the oldest dropped beyond `max`;
 * false (nothing kept) when it is `same` as the last one (by default: equal but for its time).
 */
export function keepDecision<T extends { at: number }>(
  log: T[],
  decision: T,
  max = MAX_DECISIONS,
  same: (a: T, b: T) => boolean = sameDecision,
): boolean {
  const last = log[log.length - 1];
  if (last && same(last, decision)) return false;
  log.push(decision);
  if (log.length > max) log.splice(0, log.length - max);
  return true;
}

/**
 * Two decision records are the same decision when they differ only in `at` (docs/spec.md §8): the
 * decision log keeps distinct decisions, not one entry per tick.
 */
export function sameDecision<T extends { at: number }>(a: T, b: T): boolean {
  const { at: _atA, ...restA } = a;
  const { at: _atB, ...restB } = b;
  return deepEqual(restA, restB);
}
