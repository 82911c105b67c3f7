import type { Run } from "@oah/contract";
import type { HostLeases, SessionQueue } from "@oah/coordination";
import { decideStaleRunRecovery, hostOfWorker, type RecoveryPolicy, type StaleRunAction } from "@oah/core";
import type { RecoveryStore } from "@oah/store";
import type { Logger } from "../logger";

export interface RecoveryOptions {
  store: RecoveryStore;
  queue: SessionQueue;
  policy: RecoveryPolicy;
  /** Who recovers (recorded as `lastRecoveredBy`). */
  by: string;
  /** Active runs not seen since this time (epoch ms) are stale. */
  lastSeenBefore: number;
  /** The hosts' leases: a stale run that its host's live lease lists is left alone. */
  leases: HostLeases;
  logger: Logger;
}

export interface RecoverySummary {
  requeued: number;
  failed: number;
  quarantined: number;
  /** Stale runs whose cancel had been requested, ended `cancelled`. */
  cancelled: number;
  /** Stale runs left alone because their host's lease still lists them. */
  held: number;
}

/**
 * Applies the recovery policy to one stale run (docs/spec.md §7), decided under its row lock
 * with the facts of that moment: a requeued run goes back into its session's queue
 * at its old place; after a run is failed or cancelled, its session is made ready
 * again so that its later runs go on. `executionAlive`: its host's lease lists it.
 * Returns what was done, or null when the run was no longer stale (or was left alone).
 */
export async function recoverRun(
  run: Run,
  options: RecoveryOptions,
  executionAlive = false,
): Promise<Exclude<StaleRunAction, { action: "wait" }> | null> {
  const { store, queue, policy } = options;
  const recovered = await store.recoverRun({
    runId: run.id,
    decide: (locked) => decideStaleRunRecovery({ ...locked, executionAlive }, policy),
    context: { policy, by: options.by },
    lastSeenBefore: options.lastSeenBefore,
  });
  if (!recovered) return null;
  if (recovered.queueEntry) await queue.enqueue([recovered.queueEntry]);
  // Frees the session lock if the stale execution still holds it (token-checked, so a live
  // owner is never robbed), and makes the session ready for its next run.
  await queue.release({
    sessionId: run.sessionId,
    token: recovered.previousClaimToken ?? "",
    workspaceId: run.workspaceId,
  });
  const { action } = recovered;
  options.logger.warn(
    {
      runId: run.id,
      sessionId: run.sessionId,
      from: run.status,
      action: action.action,
      reason: "reason" in action ? action.reason : "cancel_requested",
    },
    "recovered a stale run",
  );
  return action;
}

/** What became of one stale run: its recovery, `held` (its host's live lease lists it), or `gone` (no longer stale). */
export type StaleRunOutcome = "requeued" | "failed" | "quarantined" | "cancelled" | "held" | "gone";

/**
 * Recovers these stale runs, except those that the live lease of the host executing them
 * still lists: their execution, side effects included, may still be going on. Shared by the
 * periodic scan and the on-demand repair of `stale_active` jams. Returns each run's outcome.
 */
export async function recoverStaleBatch(
  stale: readonly Run[],
  options: RecoveryOptions,
): Promise<Map<string, StaleRunOutcome>> {
  const hostOf = (run: Run) => (run.workerId ? hostOfWorker(run.workerId) : null);
  const hosts = [...new Set(stale.map(hostOf).filter((h): h is string => h !== null))];
  const leased = await options.leases.runsOf(hosts);
  const outcomes = new Map<string, StaleRunOutcome>();
  for (const run of stale) {
    const host = hostOf(run);
    const alive = host !== null && (leased.get(host)?.has(run.id) ?? false);
    const action = await recoverRun(run, options, alive);
    outcomes.set(
      run.id,
      alive
        ? "held"
        : !action
          ? "gone"
          : action.action === "cancel"
            ? "cancelled"
            : action.action === "requeue"
              ? "requeued"
              : action.state,
    );
  }
  return outcomes;
}

/** Recovers every stale active run of the store, batch by batch (recoverStaleBatch). */
export async function recoverStaleRuns(options: RecoveryOptions, batchSize = 100): Promise<RecoverySummary> {
  const summary: RecoverySummary = { requeued: 0, failed: 0, quarantined: 0, cancelled: 0, held: 0 };
  let after: { sessionId: string; id: string } | undefined;
  for (;;) {
    const stale = await options.store.findStaleRuns({
      lastSeenBefore: options.lastSeenBefore,
      after,
      limit: batchSize,
    });
    if (stale.length === 0) return summary;
    const last = stale[stale.length - 1]!;
    after = { sessionId: last.sessionId, id: last.id };
    for (const outcome of (await recoverStaleBatch(stale, options)).values())
      if (outcome !== "gone") summary[outcome]++;
  }
}
