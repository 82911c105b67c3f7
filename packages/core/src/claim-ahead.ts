/**
 * Claiming ahead: while a slot's run starts and executes, the slot may claim the
 * session of its next run, so that the claim's round trip is off its path. Worth it
 * only when the slot's runs are so short that the claim would be a large part of
 * each; otherwise the session claimed ahead would wait for a slot instead of going
 * to one that is free, so the policy is strict and the hold is short.
 */
export interface ClaimAheadPolicy {
  /** How many of the slot's last runs must have been short. */
  window: number;
  /** A run is short when it executed in less than this. */
  shortRunMs: number;
  /** A session claimed ahead and not started within this is put back in the queue. */
  holdMs: number;
}

/**
 * The policy for runs shorter than `shortRunMs` (0: never claim ahead): the slot's
 * last 8 runs must have been, and a claim is held for five such runs at most.
 */
export function claimAheadPolicy(shortRunMs: number): ClaimAheadPolicy {
  return { window: 8, shortRunMs, holdMs: 5 * shortRunMs };
}

export const DEFAULT_CLAIM_AHEAD: ClaimAheadPolicy = claimAheadPolicy(5);

export interface ClaimAheadSignals {
  /** Execution times of the slot's last runs, oldest first. */
  recentRunMs: readonly number[];
  /**
   * Whether the slot's claim of the run in hand found it at once. A slot that had
   * to wait for work is on a queue that is drained: a claim ahead would find nothing.
   */
  foundWithoutWaiting: boolean;
  /** The slot is stopping: it claims nothing new. */
  stopping: boolean;
}

export function shouldClaimAhead(signals: ClaimAheadSignals, policy: ClaimAheadPolicy): boolean {
  if (signals.stopping || !signals.foundWithoutWaiting || policy.window <= 0 || policy.shortRunMs <= 0) {
    return false;
  }
  const recent = signals.recentRunMs.slice(-policy.window);
  return recent.length === policy.window && recent.every((ms) => ms < policy.shortRunMs);
}
