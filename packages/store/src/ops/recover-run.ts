import { type ActiveStatus, recordRecovery } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeMetadata, decodeRun, entryOf, type RunRow } from "../rows";
import type { RecoveredRun, RecoveryRequest } from "../run-store";
import {
  lockedStaleRun,
  recoveredCancelData,
  recoveryFailure,
  recoveryRequeueData,
  STALE_STEP_FAILURE,
} from "../run-writes";
import { fromStatuses, runColumns, toStatus } from "../sql-fragments";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";
import { recordRequeues } from "./requeue-record";

/**
 * Applies a recovery decision to a stale run, decided under its row lock from the run
 * as it is then; null when it is no longer stale or active, or the decision is to wait.
 */
export async function recoverRun(ctx: OpContext, request: RecoveryRequest): Promise<RecoveredRun | null> {
  const { db } = ctx;
  const now = ctx.now();
  const { context, runId } = request;
  return db.transaction(async (tx) => {
    // Every recovery write (requeue, fail, cancel) moves a run from the same, active, statuses.
    const [row] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
      WHERE id = ${runId} AND status IN (${fromStatuses("recoveryRequeue")}) AND parked_at IS NULL
        AND COALESCE(heartbeat_at, started_at, created_at) < ${request.lastSeenBefore}
      ${tx.forUpdate}`);
    if (!row) return null;
    const from = row.status as ActiveStatus;
    const stored = decodeMetadata(row, tx);
    const decision = request.decide(lockedStaleRun(row, stored));
    if (decision.action === "wait") return null;
    const recovered = (updated: RunRow, queued: boolean): RecoveredRun => ({
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
          claim_token = NULL, waiting_tool = NULL, tool_result = NULL, updated_at = ${now}
        WHERE id = ${runId} RETURNING ${runColumns}`);
      await insertEvent(tx, runId, "run.cancelled", now, recoveredCancelData(context.by, from));
      return recovered(cancelled!, false);
    }
    // One clock for the columns and the metadata: the overview's times match deadLetter.at.
    const metadata = recordRecovery(stored, decision, { ...context, at: new Date(now), from });
    const recovery = metadata.recovery!;
    if (decision.action === "requeue") {
      // Back at its old place in its session's queue (queue_seq unchanged).
      const [requeued] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("recoveryRequeue")}, started_at = NULL,
          heartbeat_at = NULL, ended_at = NULL, cancel_requested_at = NULL, error_code = NULL, error_message = NULL,
          claim_token = NULL, waiting_tool = NULL, tool_result = NULL, recovery_state = ${recovery.state},
          recovery_reason = ${recovery.reason}, recovered_at = ${now}, metadata = ${tx.json(metadata)},
          enqueued_at = ${now}, updated_at = ${now}
        WHERE id = ${runId} RETURNING ${runColumns}`);
      await recordRequeues(tx, [{ runId, data: recoveryRequeueData(recovery, from) }], now);
      return recovered(requeued!, true);
    }
    const failure = recoveryFailure(from, recovery);
    const [failed] = await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("recoveryFail")},
        error_code = ${failure.errorCode}, error_message = ${failure.errorMessage}, ended_at = ${now}, claim_token = NULL,
        waiting_tool = NULL, tool_result = NULL, recovery_state = ${recovery.state},
        recovery_reason = ${recovery.reason}, recovered_at = ${now}, metadata = ${tx.json(metadata)},
        updated_at = ${now}
      WHERE id = ${runId} RETURNING ${runColumns}`);
    await insertEvent(tx, runId, "run.failed", now, failure.data);
    return recovered(failed!, false);
  });
}
