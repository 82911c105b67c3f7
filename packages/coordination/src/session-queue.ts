import type { QueueEntry, QueuePressure, RunPriority } from "@oah/core";
import type { WorkspaceReadySessions } from "./workspace-ready";

/** A session's lock, fenced by `token`, held for a run of `workspaceId` (whose share it counts in). */
export interface SessionLock {
  sessionId: string;
  token: string;
  workspaceId: string;
}

/** A session taken by one worker: its lock, and the run to execute. */
export interface SessionClaim extends SessionLock {
  entry: QueueEntry;
  /** Since when the session was ready, on the queue's clock: its place in line when claimed. */
  readySince: number;
}

export interface ReleaseOptions {
  /** A claimed entry that did not start: back into its place in the session's queue. */
  putBack?: QueueEntry;
  /**
   * Whether the session goes back to the ready set if runs remain (default true).
   * False when an earlier run is unfinished: the session then waits for that run
   * to be enqueued, or for a release once it ended; if that run was enqueued while
   * the lock was held (it is the session's head now), the session is ready at once.
   */
  ready?: boolean;
  /**
   * For a claim whose run did not start (put back, refused, or gone): the session
   * takes back its place in the ready set (the claim's `readySince`) instead of
   * going to the back of the line; it has not had its turn.
   */
  readySince?: number;
  /**
   * Drops the lock only if its holder has not renewed it for this long (an orphan's repair,
   * docs/spec.md §7): checked in the same atomic step, so a holder that still renews keeps it.
   */
  ifSilentForMs?: number;
}

/** What the queue holds of one session: for the inspector and the jam scan, not the hot path. */
export interface SessionQueueView {
  sessionId: string;
  /** Its lock: the fencing token, the time it has left, and how long since it was taken or last renewed. */
  lock: { token: string; ttlMs: number; silentMs: number } | null;
  /** Its place in line while it waits to be claimed (a locked session does not wait): lane, since when, workspace. */
  ready: { lane: RunPriority; since: number; workspaceId: string } | null;
  /** Its queued runs, in order. */
  entries: QueueEntry[];
}

/** Sessions the jam scan looks at from the queue's side, up to a limit of each. */
export interface QueueSurvey {
  /** Sessions whose lock is held. */
  locked: string[];
  /** Sessions waiting in line with no runs and no lock: nothing to claim, yet counted as ready. */
  emptyReady: string[];
}

/**
 * Per-session FIFO queues, a ready set of sessions with waiting runs, and one
 * lock per session (docs/spec.md §5). Implemented in process (`memory/`) and over Redis.
 * Sessions wait in the lanes of their head run's workspace, and claims go to the
 * workspaces by their fair share (`FairShare` of @oah/core: weights and caps).
 */
export interface SessionQueue {
  /** Adds runs to their sessions' queues in `queueSeq` order; sessions become ready unless locked. */
  enqueue(entries: readonly QueueEntry[]): Promise<void>;
  /**
   * Atomically takes, in the claimable workspace whose turn it is (least pass), the
   * oldest ready session whose lock is free (subagent lane first), locks it with a
   * fresh token and pops its head run.
   */
  claim(): Promise<SessionClaim | null>;
  /**
   * Extends the locks still held by their tokens, in one call; returns the sessions
   * whose lock another token now holds. A lock that is simply gone is not taken again
   * and not reported: the run goes on, and the store keeps its session in order.
   */
  renewLocks(locks: readonly SessionLock[]): Promise<string[]>;
  /**
   * Drops the lock if the token still holds it, and with it a place in the share of the
   * lock's workspace; the session goes back to the end of the ready set if it has runs
   * and no lock. With a token that no longer holds the lock (recovery of a dead worker's
   * run), only the latter happens.
   */
  release(lock: SessionLock, options?: ReleaseOptions): Promise<boolean>;
  /**
   * Makes ready those of these sessions that hold runs while neither locked nor
   * ready: nothing would ever claim them (a wake-up lost to a bug). Returns them.
   * `blockerEnded`: their earlier run has just ended outside any claim (a parked run
   * cancelled or timed out); a session locked now is then made ready when its lock is
   * released, even by a holder that says "not ready" (whose run that earlier one blocked).
   */
  readyStranded(sessionIds: readonly string[], options?: { blockerEnded?: boolean }): Promise<string[]>;
  /** Takes a run out of its session's queue (a queued run was cancelled). */
  remove(sessionId: string, runId: string): Promise<boolean>;
  /** Resolves when a session may be claimable, or when `signal` aborts. Push, never a polling period. */
  waitForWork(signal: AbortSignal): Promise<void>;
  /**
   * Wakes this process's idle workers: the pool does so when its pressure read shows
   * schedulable sessions while workers wait, should a wake-up ever have been missed.
   */
  nudge(): void;
  pressure(): Promise<QueuePressure>;
  /**
   * The ready sessions of up to `limit` workspaces that have any (claimable, or waiting
   * for their cap), most first; for reports, not the hot path. Which workspaces, when
   * more than `limit` have some, is the backend's choice.
   */
  readyByWorkspace(limit: number): Promise<WorkspaceReadySessions[]>;
  /** What the queue holds of each of these sessions, in their order, with at most `maxEntries` runs each. */
  inspect(sessionIds: readonly string[], maxEntries?: number): Promise<SessionQueueView[]>;
  /** Locked sessions and empty ready entries, up to `limit` of each (which ones past it: the backend's choice). */
  survey(limit: number): Promise<QueueSurvey>;
  /** Takes out of the ready set those of these sessions that hold no runs and no lock. Returns them. */
  dropEmptyReady(sessionIds: readonly string[]): Promise<string[]>;
  /** Every queued entry, batch by batch (for reconciling the queue with the store). */
  entries(): AsyncIterable<QueueEntry[]>;
  /** How many runs the queue holds. */
  size(): Promise<number>;
  /**
   * Which of these runs are lost: the queue does not hold them, and their session's
   * lock is free. A run whose session is locked is in a claim's hands (claimed, or
   * claimed ahead, and not started yet); should its holder die, the lock expires and
   * the run is lost then.
   */
  lost(entries: readonly QueueEntry[]): Promise<string[]>;
  /**
   * Sets the queue's marker; true when it was missing: the first call ever, or the
   * queue lost its state (Redis flushed or restarted without persistence).
   */
  markLive(): Promise<boolean>;
  close(): Promise<void>;
}
