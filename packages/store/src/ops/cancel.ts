import type { Run } from "@oah/contract";
import type { BusyCancelReason } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, type RunRow } from "../rows";
import type { SqlClient } from "../sql/client";
import { fromStatuses, runColumns, statusOfRuns, toStatus } from "../sql-fragments";
import type { OpContext } from "./context";
import { insertEvents } from "./insert-events";

export type CancelRequest =
  /** Ended at once: it was queued, or parked (`parked`: its session may have later runs to go on with). */
  | { kind: "cancelled"; run: Run; parked: boolean }
  | { kind: "requested"; run: Run }
  | { kind: "terminal"; run: Run }
  | { kind: "missing" };

/**
 * A queued or parked run is cancelled at once; an executing one is asked to stop (its execution
 * ends it): at once, or with a `cause` (an operator's interrupt) at its next step boundary.
 */
export async function requestCancel(
  ctx: OpContext,
  runId: string,
  cause?: CancelCause,
): Promise<CancelRequest> {
  const now = ctx.now();
  const request = await ctx.db.transaction(
    async (tx) => (await requestCancelsIn(tx, [runId], now, cause))[0]!,
  );
  ctx.wrote(cancelledSessions([request]));
  return request;
}

/** A cancel that wrote something: its run ended, or was asked to stop. */
export const stopsRun = (
  r: CancelRequest,
): r is Extract<CancelRequest, { kind: "cancelled" | "requested" }> =>
  r.kind === "cancelled" || r.kind === "requested";

/** The sessions of the runs these cancels wrote: those ended, and those asked to stop. */
export const cancelledSessions = (requests: readonly CancelRequest[]): string[] =>
  requests.filter(stopsRun).map((r) => r.run.sessionId);

/**
 * A cancel that stops a run at its next step boundary (docs/spec.md §5): why, and for which later
 * submission to the run's session (null: an operator's interrupt, for no run).
 */
export interface CancelCause {
  reason: BusyCancelReason;
  by: string | null;
}

/** Who a cause names in its message when no run asked for it. */
const OPERATOR = "an operator";

/**
 * The error message of a run a cause ended: "interrupted by run_…", "replaced by run_…",
 * "interrupted by an operator".
 */
export const causeMessage = ({ reason, by }: CancelCause): string => `${reason} by ${by ?? OPERATOR}`;

/** causeMessage of a run's own columns, for the writes that end it in SQL (its execution's end, recovery's). */
export const causeMessageOfRow = sql`runs.cancel_reason || ' by ' || COALESCE(runs.cancelled_by, ${sql.raw(`'${OPERATOR}'`)})`;

/**
 * Runs' cancels in the caller's transaction, in a few statements however many: one run's (the
 * API's), a bulk job's chunk, or those a busy session's submission asks for (`cause`); each
 * decided under its row lock. An executing run keeps its cause until its execution ends it
 * (then its error); one whose plain cancel came first stays a plain cancel.
 */
export async function requestCancelsIn(
  tx: SqlClient,
  runIds: readonly string[],
  now: number,
  cause?: CancelCause,
): Promise<CancelRequest[]> {
  const list = (ids: readonly string[]) =>
    sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    );
  if (runIds.length === 0) return [];
  // Locked in id order, as every writer of many runs locks them, so that two never deadlock.
  const rows = await tx.all<RunRow>(
    sql`SELECT ${runColumns} FROM runs WHERE id IN (${list(runIds)}) ORDER BY id ${tx.forUpdate}`,
  );
  const queued = rows.filter((r) => r.status === "queued").map((r) => r.id);
  const parked = rows.filter((r) => r.status !== "queued" && r.parked_at !== null).map((r) => r.id);
  const executing = rows
    .filter((r) => (r.status === "running" || r.status === "waiting_tool") && r.parked_at === null)
    .map((r) => r.id);
  const answers = new Map<string, CancelRequest>();
  for (const r of rows) answers.set(r.id, { kind: "terminal", run: decodeRun(r, tx) });
  // A run ended here by a cause has it as its error at once.
  const ended = cause
    ? sql`, cancel_reason = ${cause.reason}, cancelled_by = ${cause.by}, error_code = ${cause.reason},
        error_message = ${causeMessage(cause)}`
    : sql``;
  if (queued.length > 0) {
    const cancelled = await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("cancelQueued")},
        cancel_requested_at = ${now}, ended_at = ${now}, updated_at = ${now}${ended}
      WHERE id IN (${list(queued)}) AND ${statusOfRuns} IN (${fromStatuses("cancelQueued")}) RETURNING ${runColumns}`);
    for (const r of cancelled) answers.set(r.id, { kind: "cancelled", run: decodeRun(r, tx), parked: false });
  }
  if (parked.length > 0) {
    // Nobody executes a parked run: it ends here.
    const cancelled = await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("cancelParked")},
        cancel_requested_at = ${now}, ended_at = ${now}, parked_at = NULL, parked_state = NULL, waiting_tool = NULL,
        tool_result = NULL, updated_at = ${now}${ended}
      WHERE id IN (${list(parked)}) AND ${statusOfRuns} IN (${fromStatuses("cancelParked")}) RETURNING ${runColumns}`);
    for (const r of cancelled) answers.set(r.id, { kind: "cancelled", run: decodeRun(r, tx), parked: true });
  }
  if (executing.length > 0) {
    const caused = cause
      ? sql`, cancel_reason = CASE WHEN cancel_requested_at IS NULL THEN ${cause.reason} ELSE cancel_reason END,
          cancelled_by = CASE WHEN cancel_requested_at IS NULL THEN ${cause.by} ELSE cancelled_by END`
      : sql``;
    const requested = await tx.all<RunRow>(sql`UPDATE runs
      SET cancel_requested_at = COALESCE(cancel_requested_at, ${now}), updated_at = ${now}${caused}
      WHERE id IN (${list(executing)}) RETURNING ${runColumns}`);
    for (const r of requested) answers.set(r.id, { kind: "requested", run: decodeRun(r, tx) });
  }
  const done = [...answers.values()].filter((a) => a.kind === "cancelled");
  if (done.length > 0) {
    await insertEvents(
      tx,
      done.map((a) => ({
        runId: a.run.id,
        type: "run.cancelled" as const,
        data: {
          while: a.kind === "cancelled" && a.parked ? "parked" : "queued",
          ...(cause ? { errorCode: cause.reason, errorMessage: causeMessage(cause), by: cause.by } : {}),
        },
      })),
      now,
    );
  }
  return runIds.map((id) => answers.get(id) ?? ({ kind: "missing" } as const));
}
