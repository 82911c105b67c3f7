import {
  checkManualRequeue,
  type ManualRequeueFacts,
  OahError,
  type QueueEntry,
  type RecoveryState,
  type RunMetadata,
  type RunStatus,
  recordManualRequeue,
} from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeMetadata, entryOf, hasSession, type RunRow } from "../rows";
import { encodeJson, type SqlClient } from "../sql/client";
import { runColumns, toStatus } from "../sql-fragments";
import type { OpContext } from "./context";
import { recordRequeues } from "./requeue-record";
import { takePositions } from "./session-positions";

export interface ManualRequeueRequest {
  /** Who asks: the caller (its token's name). */
  by: string;
  /** The name the caller gave as who asks, kept beside it; null when it gave none. */
  claimedBy: string | null;
  maxAttempts: number;
  includeCancelled: boolean;
  /**
   * Start over from the first step: the runs' checkpoints are dropped. By default a requeued run
   * goes on from its last checkpoint (docs/spec.md §7).
   */
  fromStart?: boolean;
}

export type ManualRequeueOutcome =
  | { runId: string; ok: true; previousStatus: RunStatus; queueEntry: QueueEntry }
  | { runId: string; ok: false; code: string; message: string };

/** What checkManualRequeue weighs of a run. */
function manualRequeueFacts(row: RunRow, metadata: RunMetadata): ManualRequeueFacts {
  return {
    status: row.status as RunStatus,
    errorCode: row.error_code,
    recoveryState: row.recovery_state as RecoveryState | null,
    metadata,
    hasSession: hasSession(row),
    cancelRequested: row.cancel_requested_at !== null,
  };
}

/**
 * The data of an operator's requeue events: who asked (the caller), and the name it gave, if any;
 * whether the run starts over or goes on from its checkpoint.
 */
const manualRequeueData = (by: string, claimedBy: string | null, from: RunStatus, fromStart: boolean) => ({
  reason: "manual_operator_requeue",
  requestedBy: by,
  ...(claimedBy ? { claimedBy } : {}),
  from,
  fromStart,
});

/**
 * An operator's requeue of each run (docs/spec.md §7), one transaction each: to the tail of its session, with
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
  ctx.wrote(requeuedSessions(outcomes));
  return outcomes;
}

/** The sessions of the runs these requeues put back into their queues. */
export const requeuedSessions = (outcomes: readonly ManualRequeueOutcome[]): string[] =>
  outcomes.flatMap((o) => (o.ok ? [o.queueEntry.sessionId] : []));

function requeueRun(
  ctx: OpContext,
  runId: string,
  request: ManualRequeueRequest,
): Promise<ManualRequeueOutcome> {
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => (await requeueRunsIn(tx, [runId], request, now))[0]!);
}

const inList = (ids: readonly string[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

/**
 * Runs' requeues in the caller's transaction, in a few statements however many: one run's
 * (the API's), or a bulk job's chunk. Each run is checked under its row lock, the eligible ones
 * go to the tail of their session in the order given, with a fresh budget.
 */
export async function requeueRunsIn(
  tx: SqlClient,
  runIds: readonly string[],
  request: ManualRequeueRequest,
  now: number,
): Promise<ManualRequeueOutcome[]> {
  const { by, claimedBy, maxAttempts } = request;
  if (runIds.length === 0) return [];
  // Locked in id order, as every writer of many runs locks them, so that two never deadlock.
  const rows = await tx.all<RunRow>(
    sql`SELECT ${runColumns} FROM runs WHERE id IN (${inList(runIds)}) ORDER BY id ${tx.forUpdate}`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const outcomes = new Map<string, ManualRequeueOutcome>();
  const eligible: { row: RunRow; status: RunStatus; metadata: RunMetadata }[] = [];
  for (const runId of new Set(runIds)) {
    const row = byId.get(runId);
    if (!row) {
      outcomes.set(runId, { runId, ok: false, code: "run_not_found", message: `no run with id ${runId}` });
      continue;
    }
    const metadata = decodeMetadata(row, tx);
    const status = row.status as RunStatus;
    const check = checkManualRequeue(manualRequeueFacts(row, metadata), request.includeCancelled);
    if (!check.ok) outcomes.set(runId, { runId, ok: false, code: check.code, message: check.message });
    else
      eligible.push({
        row,
        status,
        metadata: recordManualRequeue(metadata, {
          from: status,
          by,
          claimedBy,
          at: new Date(now),
          maxAttempts,
        }),
      });
  }
  if (eligible.length > 0) {
    // The tail of each session: fresh positions from its counter, one move for all its runs.
    const seqs = await takePositions(
      tx,
      eligible.map(({ row }) => row.session_id),
      now,
    );
    const positions = eligible.map(({ row, metadata }, i) => [row.id, String(seqs[i]), encodeJson(metadata)]);
    const requeued = await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("manualRequeue")},
        queue_seq = CAST(v.column2 AS integer), output = NULL, error_code = NULL, error_message = NULL,
        started_at = NULL, heartbeat_at = NULL, ended_at = NULL, cancel_requested_at = NULL, cancel_reason = NULL, cancelled_by = NULL, claim_token = NULL,
        waiting_tool = NULL, tool_result = NULL, recovery_state = 'requeued',
        recovery_reason = 'manual_operator_requeue', metadata = ${tx.asJson(sql`v.column3`)},
        enqueued_at = ${now}, updated_at = ${now}
      FROM ${tx.rowsOf(3, positions)} WHERE runs.id = v.column1 RETURNING ${runColumns}`);
    const statusOf = new Map(eligible.map((e) => [e.row.id, e.status]));
    await recordRequeues(
      tx,
      eligible.map(({ row, status }) => ({
        runId: row.id,
        data: manualRequeueData(by, claimedBy, status, request.fromStart === true),
      })),
      now,
    );
    if (request.fromStart)
      await tx.run(
        sql`DELETE FROM run_checkpoints WHERE run_id IN (SELECT column1 FROM ${tx.rowsOf(
          1,
          eligible.map(({ row }) => [row.id]),
        )})`,
      );
    for (const row of requeued) {
      outcomes.set(row.id, {
        runId: row.id,
        ok: true,
        previousStatus: statusOf.get(row.id)!,
        queueEntry: entryOf(row),
      });
    }
  }
  return [...new Set(runIds)].map((id) => outcomes.get(id)!);
}
