import type { Run } from "@oah/contract";
import {
  type ActiveStatus,
  type OnInterrupt,
  type QueueEntry,
  type RecoveryContext,
  type RecoveryRecord,
  type RunMetadata,
  type RunStatus,
  recordRecovery,
  type StaleRunAction,
} from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeMetadata, decodeRun, entryOf, hasQueuePlace, hasSession, type RunRow } from "../rows";
import type { SqlClient } from "../sql/client";
import { fromStatuses, runColumns, toStatus } from "../sql-fragments";
import { causeMessageOfRow } from "./cancel";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";
import { recordRequeues } from "./requeue-record";

export interface RecoveredRun {
  run: Run;
  /** What was done: the run requeued, failed (or quarantined), or cancelled. */
  action: Exclude<StaleRunAction, { action: "wait" }>;
  /** Present when the run was requeued: where it goes back into its session's queue. */
  queueEntry: QueueEntry | null;
  /** The claim token of the execution that went stale: its session lock may still be held by it. */
  previousClaimToken: string | null;
}

/** The run as the recovery transaction finds it under its row lock. */
export interface LockedStaleRun {
  status: ActiveStatus;
  recoveryAttempts: number;
  cancelRequested: boolean;
  /** The run belongs to a session (as a manual requeue checks it). */
  hasSession: boolean;
  /** The run has its place in its session's queue (its queue position) to go back to. */
  queueAvailable: boolean;
  /** A waiting run has a checkpoint its next attempt goes on into the wait from (a running one: always). */
  resumable: boolean;
  /** The policy of the command the stale execution was running, if it was running one. */
  interrupted: OnInterrupt | null;
}

export interface RecoveryRequest {
  runId: string;
  /**
   * Decided under the row lock, from the run as it is then: a cancel requested since the run
   * was found stale is honoured. `wait` leaves the run as it is.
   */
  decide(run: LockedStaleRun): StaleRunAction;
  context: Omit<RecoveryContext, "from" | "at">;
  /** Re-checked under the row lock, so that a run that came back to life is left alone. */
  lastSeenBefore: number;
}

/** The stale run as recovery decides on it, under its lock, with its progress. */
async function lockedStaleRun(tx: SqlClient, row: RunRow, metadata: RunMetadata): Promise<LockedStaleRun> {
  const [progress] = await tx.all<{
    checkpointed: number | boolean;
    interrupted: OnInterrupt | null;
  }>(sql`SELECT
      EXISTS (SELECT 1 FROM run_checkpoints WHERE run_id = ${row.id}) AS checkpointed,
      (SELECT on_interrupt FROM run_steps WHERE run_id = ${row.id} AND status = 'running' AND kind <> 'system'
        ORDER BY id LIMIT 1) AS interrupted`);
  return {
    status: row.status as ActiveStatus,
    recoveryAttempts: metadata.recoveryAttempts ?? 0,
    cancelRequested: row.cancel_requested_at !== null,
    hasSession: hasSession(row),
    queueAvailable: hasQueuePlace(row),
    resumable: row.status !== "waiting_tool" || Boolean(progress?.checkpointed),
    interrupted: progress?.interrupted ?? null,
  };
}

/** How recovery ends the steps a stale execution left running. */
const STALE_STEP_FAILURE = {
  status: "failed",
  errorCode: "worker_recovery_failed",
  errorMessage: "the worker executing this step stopped responding",
} as const;

/** The data of an automatic requeue's events. */
const recoveryRequeueData = (recovery: RecoveryRecord, from: RunStatus) => ({
  reason: recovery.reason,
  recoveryAttempts: recovery.attempts,
  from,
});

/** The data of the run.cancelled event of a stale run whose cancel recovery honoured. */
const recoveredCancelData = (by: string, from: ActiveStatus) => ({
  reason: "cancel_requested",
  recoveredBy: by,
  from,
});

/** The error of a stale run that recovery failed, and the data of its run.failed event. */
function recoveryFailure(from: RunStatus, recovery: RecoveryRecord) {
  // A command that must not run twice without a person deciding has its own code: it is why.
  const errorCode = recovery.reason === "step_interrupted" ? "step_interrupted" : "worker_recovery_failed";
  const errorMessage =
    recovery.reason === "step_interrupted"
      ? `run was ${from} on a worker that stopped responding while a command with onInterrupt: fail ran (step_interrupted)`
      : `run was ${from} on a worker that stopped responding (${recovery.reason})`;
  return {
    errorCode,
    errorMessage,
    data: {
      errorCode,
      errorMessage,
      reason: recovery.reason,
      recoveryState: recovery.state,
    },
  } as const;
}

/**
 * Applies a recovery decision to a stale run, decided under its row lock from the run
 * as it is then; null when it is no longer stale or active, or the decision is to wait.
 */
export async function recoverRun(ctx: OpContext, request: RecoveryRequest): Promise<RecoveredRun | null> {
  const { db } = ctx;
  const now = ctx.now();
  const { context, runId } = request;
  const recovered = await db.transaction(async (tx): Promise<RecoveredRun | null> => {
    // Every recovery write (requeue, fail, cancel) moves a run from the same, active, statuses.
    const [row] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
      WHERE id = ${runId} AND status IN (${fromStatuses("recoveryRequeue")}) AND parked_at IS NULL
        AND COALESCE(heartbeat_at, started_at, created_at) < ${request.lastSeenBefore}
      ${tx.forUpdate}`);
    if (!row) return null;
    const from = row.status as ActiveStatus;
    const stored = decodeMetadata(row, tx);
    const decision = request.decide(await lockedStaleRun(tx, row, stored));
    if (decision.action === "wait") return null;
    const answer = (updated: RunRow, queued: boolean): RecoveredRun => ({
      run: decodeRun(updated, db),
      action: decision,
      queueEntry: queued ? entryOf(updated) : null,
      previousClaimToken: row.claim_token,
    });
    // Steps the stale execution left open end with it.
    const step = STALE_STEP_FAILURE;
    await tx.run(sql`UPDATE run_steps SET status = ${step.status}, ended_at = ${now}, error_code = ${step.errorCode},
        error_message = ${step.errorMessage}
      WHERE run_id = ${runId} AND status = 'running'`);
    // Clearing the claim token fences out the execution that went stale, should it wake up.
    if (decision.action === "cancel") {
      const [cancelled] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("recoveryCancel")}, ended_at = ${now},
          error_code = cancel_reason, error_message = CASE WHEN cancel_reason IS NULL THEN NULL ELSE ${causeMessageOfRow} END,
          claim_token = NULL, waiting_tool = NULL, tool_result = NULL, updated_at = ${now}
        WHERE id = ${runId} RETURNING ${runColumns}`);
      await insertEvent(tx, runId, "run.cancelled", now, recoveredCancelData(context.by, from));
      return answer(cancelled!, false);
    }
    // One clock for the columns and the metadata: the overview's times match deadLetter.at.
    const metadata = recordRecovery(stored, decision, { ...context, at: new Date(now), from });
    const recovery = metadata.recovery!;
    if (decision.action === "requeue") {
      // Back at its old place in its session's queue (queue_seq unchanged). A held wait keeps its
      // tool and a result delivered but not yet taken: its next attempt goes on into the same wait.
      const [requeued] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("recoveryRequeue")}, started_at = NULL,
          heartbeat_at = NULL, ended_at = NULL, cancel_requested_at = NULL, cancel_reason = NULL, cancelled_by = NULL, error_code = NULL, error_message = NULL,
          claim_token = NULL, recovery_state = ${recovery.state},
          recovery_reason = ${recovery.reason}, recovered_at = ${now}, metadata = ${tx.json(metadata)},
          enqueued_at = ${now}, updated_at = ${now}
        WHERE id = ${runId} RETURNING ${runColumns}`);
      await recordRequeues(tx, [{ runId, data: recoveryRequeueData(recovery, from) }], now);
      return answer(requeued!, true);
    }
    const failure = recoveryFailure(from, recovery);
    const [failed] = await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("recoveryFail")},
        error_code = ${failure.errorCode}, error_message = ${failure.errorMessage}, ended_at = ${now}, claim_token = NULL,
        waiting_tool = NULL, tool_result = NULL, recovery_state = ${recovery.state},
        recovery_reason = ${recovery.reason}, recovered_at = ${now}, metadata = ${tx.json(metadata)},
        updated_at = ${now}
      WHERE id = ${runId} RETURNING ${runColumns}`);
    await insertEvent(tx, runId, "run.failed", now, failure.data);
    return answer(failed!, false);
  });
  if (recovered) ctx.wrote([recovered.run.sessionId]);
  return recovered;
}
