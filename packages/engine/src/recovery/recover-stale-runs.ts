import type { Run } from "@oah/contract";
import {
  type ActiveStatus,
  decideStaleRunRecovery,
  type RecoveryDecision,
  type RecoveryPolicy,
} from "@oah/core";
import type { SessionQueue } from "@oah/queue";
import type { RunStore } from "@oah/store";
import type { Logger } from "../logger";

export interface RecoveryOptions {
  store: RunStore;
  queue: SessionQueue;
  policy: RecoveryPolicy;
  /** Who recovers (recorded as `lastRecoveredBy`). */
  by: string;
  /** Active runs not seen since this time (epoch ms) are stale. */
  lastSeenBefore: number;
  logger: Logger;
}

export interface RecoverySummary {
  requeued: number;
  failed: number;
  quarantined: number;
}

/**
 * Applies the recovery policy to one stale run (SPEC §7): a requeued run goes
 * back into its session's queue at its old place; after a run is failed, its
 * session is made ready again so that its later runs go on. Returns what was
 * done, or null when the run was no longer stale.
 */
export async function recoverRun(run: Run, options: RecoveryOptions): Promise<RecoveryDecision | null> {
  const { store, queue, policy } = options;
  const from = run.status as ActiveStatus;
  const decision = decideStaleRunRecovery(
    {
      status: from,
      recoveryAttempts: run.metadata.recoveryAttempts ?? 0,
      hasSession: true,
      queueAvailable: true,
    },
    policy,
  );
  const recovered = await store.recoverRun({
    runId: run.id,
    decision,
    context: { policy, by: options.by, at: new Date(), from },
    lastSeenBefore: options.lastSeenBefore,
  });
  if (!recovered) return null;
  if (recovered.queueEntry) await queue.enqueue([recovered.queueEntry]);
  // Frees the session lock if the stale execution still holds it (token-checked, so a live
  // owner is never robbed), and makes the session ready for its next run.
  await queue.release(run.sessionId, recovered.previousClaimToken ?? "");
  options.logger.warn(
    { runId: run.id, sessionId: run.sessionId, from, action: decision.action, reason: decision.reason },
    "recovered a stale run",
  );
  return decision;
}

/** Recovers every stale active run of the store, batch by batch. */
export async function recoverStaleRuns(options: RecoveryOptions, batchSize = 100): Promise<RecoverySummary> {
  const summary: RecoverySummary = { requeued: 0, failed: 0, quarantined: 0 };
  const seen = new Set<string>();
  for (;;) {
    const stale = (
      await options.store.findStaleRuns({ lastSeenBefore: options.lastSeenBefore, limit: batchSize })
    ).filter((r) => !seen.has(r.id));
    if (stale.length === 0) return summary;
    for (const run of stale) {
      seen.add(run.id);
      const decision = await recoverRun(run, options);
      if (decision) summary[decision.action === "requeue" ? "requeued" : decision.state]++;
    }
  }
}
