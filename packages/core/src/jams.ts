/**
 * Jammed sessions (docs/spec.md §7, "Jams"): the kinds of dirt the queue can hold that keep a
 * session's runs from going on, each found by the jam scan and repaired by an action of its own.
 * - `orphan_lock`: a session lock that no live execution holds (its holder stopped renewing it);
 * - `stale_ready`: a ready entry of a session with no runs and no lock;
 * - `lost_run`: a run the store says awaits a slot that the queue has lost;
 * - `lost_wake`: a session whose runs the queue holds that is neither ready nor locked;
 * - `stale_active`: an active run whose heartbeat is past stale.
 */
export const JAM_KINDS = ["orphan_lock", "stale_ready", "lost_run", "lost_wake", "stale_active"] as const;
export type JamKind = (typeof JAM_KINDS)[number];

/** What the jam scan knows of one session, from the queue and the store. */
export interface SessionJamFacts {
  /** Its lock: how long since it was taken or last renewed, and whether its holder proves itself alive. */
  lock: { silentMs: number; holderLive: boolean } | null;
  /** Waiting in line in the ready set (a locked session is not). */
  ready: boolean;
  /** Runs the queue holds for it. */
  queuedRuns: number;
  /** Runs the store says await a slot, and have waited longer than a claim takes to start them. */
  awaitingRuns: number;
  /** Of those, runs the queue has lost (it does not hold them, and no claim has them in hand). */
  lostRuns: number;
  /** Active runs whose heartbeat is past stale. */
  staleRuns: number;
  /** Its first queued run is held back by an earlier unfinished one (parked, or executing): it waits for that run. */
  headBlocked: boolean;
}

/**
 * How long a lock may go unrenewed before it counts as orphaned: its holder renews it with
 * every heartbeat, so two missed renewals say it is dead or frozen. A frozen holder that
 * wakes after its lock was broken finds it gone, and the store still keeps its session in
 * order (docs/spec.md §5): breaking a lock is safe, but never done to a holder that renews.
 */
export const orphanLockSilenceMs = (heartbeatIntervalMs: number): number => 2 * heartbeatIntervalMs;

/** The jams of one session: every kind whose dirt it holds. */
export function jamsOf(facts: SessionJamFacts, heartbeatIntervalMs: number): JamKind[] {
  const { lock } = facts;
  const found: JamKind[] = [];
  if (lock && !lock.holderLive && lock.silentMs > orphanLockSilenceMs(heartbeatIntervalMs))
    found.push("orphan_lock");
  if (facts.ready && facts.queuedRuns === 0 && !lock) found.push("stale_ready");
  if (facts.lostRuns > 0) found.push("lost_run");
  // Runs it holds and nobody could claim, nor waits for an earlier run: nothing would ever wake a worker for them.
  if (
    !lock &&
    !facts.ready &&
    !facts.headBlocked &&
    facts.queuedRuns > 0 &&
    facts.awaitingRuns > facts.lostRuns
  )
    found.push("lost_wake");
  if (facts.staleRuns > 0) found.push("stale_active");
  return found;
}
