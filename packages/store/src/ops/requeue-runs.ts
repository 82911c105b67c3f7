import { checkManualRequeue, OahError, type RunStatus, recordManualRequeue } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeMetadata, entryOf, type RunRow } from "../rows";
import type { ManualRequeueOutcome, ManualRequeueRequest } from "../run-store";
import { manualRequeueData, manualRequeueFacts } from "../run-writes";
import { runColumns, toStatus } from "../sql-fragments";
import type { OpContext } from "./context";
import { recordRequeue } from "./requeue-record";

/**
 * An operator's requeue of each run, one transaction each: to the tail of its session, with
 * a fresh budget. A run whose transaction fails is answered `run_requeue_failed` and the
 * others go on, so that a bulk answer says which runs were requeued; a store that cannot be
 * reached fails the whole call (store_unavailable).
 */
export async function requeueRuns(
  ctx: OpContext,
  runIds: readonly string[],
  request: ManualRequeueRequest,
): Promise<ManualRequeueOutcome[]> {
  const outcomes: ManualRequeueOutcome[] = [];
  for (const runId of runIds) {
    try {
      outcomes.push(await requeueRun(ctx, runId, request));
    } catch (error) {
      if (error instanceof OahError) throw error;
      const message = `the requeue could not be written: ${(error as Error).message}`;
      outcomes.push({ runId, ok: false, code: "run_requeue_failed", message });
    }
  }
  return outcomes;
}

function requeueRun(
  ctx: OpContext,
  runId: string,
  request: ManualRequeueRequest,
): Promise<ManualRequeueOutcome> {
  const { by, maxAttempts } = request;
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.all<RunRow>(
      sql`SELECT ${runColumns} FROM runs WHERE id = ${runId} ${tx.forUpdate}`,
    );
    if (!row) return { runId, ok: false, code: "run_not_found", message: `no run with id ${runId}` } as const;
    const metadata = decodeMetadata(row, tx);
    const status = row.status as RunStatus;
    const check = checkManualRequeue(manualRequeueFacts(row, metadata), request.includeCancelled);
    if (!check.ok) return { runId, ok: false, code: check.code, message: check.message } as const;
    const next = recordManualRequeue(metadata, { from: status, by, at: new Date(now), maxAttempts });
    // The tail of its session: a fresh position from the session's counter.
    const [session] = await tx.all<{ last_seq: number }>(sql`UPDATE sessions SET last_seq = last_seq + 1,
        updated_at = ${now} WHERE id = ${row.session_id} RETURNING last_seq`);
    const [requeued] =
      await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("manualRequeue")}, queue_seq = ${session!.last_seq},
        output = NULL, error_code = NULL, error_message = NULL, started_at = NULL, heartbeat_at = NULL, ended_at = NULL,
        cancel_requested_at = NULL, claim_token = NULL, waiting_tool = NULL, tool_result = NULL,
        recovery_state = 'requeued', recovery_reason = 'manual_operator_requeue', metadata = ${tx.json(next)},
        enqueued_at = ${now}, updated_at = ${now}
      WHERE id = ${runId} RETURNING ${runColumns}`);
    await recordRequeue(tx, runId, manualRequeueData(by, status), now);
    return { runId, ok: true, previousStatus: status, queueEntry: entryOf(requeued!) } as const;
  });
}
