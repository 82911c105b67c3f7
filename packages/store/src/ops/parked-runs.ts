import type { Run } from "@oah/contract";
import { runTimedOutError, STATUS_WRITES } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, type RunRow } from "../rows";
import { fromStatuses, runColumns, toStatus } from "../sql-fragments";
import type { Claim } from "./claim";
import type { OpContext } from "./context";
import { insertEvent, insertEvents } from "./insert-events";
import type { StartResult } from "./transitions";

/** A wait to park: the tool waited for, and what the executor needs to go on after it. */
export interface Park {
  tool: string;
  state: unknown;
}

/** `cancel_requested`: not parked, since a cancel came first: the execution ends the run cancelled. */
export type ParkResult = "parked" | "cancel_requested" | "fenced";

/** The columns a parked run gives up when it resumes or ends. */
const UNPARKED = sql.raw("parked_at = NULL, parked_state = NULL, waiting_tool = NULL, tool_result = NULL");

/**
 * running → waiting_tool, parked (docs/spec.md §6): the execution's state is kept on the row,
 * and the run leaves its worker and its claim (whose token no longer fences anything in).
 * A cancel already asked for wins: the execution then ends the run cancelled.
 */
export async function parkRun(ctx: OpContext, claim: Claim, park: Park): Promise<ParkResult> {
  const now = ctx.now();
  const parked = await ctx.db.transaction(async (tx): Promise<ParkResult | { sessionId: string }> => {
    const [row] = await tx.all<{
      session_id: string;
      status: string;
      cancel_requested_at: number | null;
    }>(sql`
      SELECT session_id, status, cancel_requested_at FROM runs
      WHERE id = ${claim.runId} AND claim_token = ${claim.token} ${tx.forUpdate}`);
    if (!row || !(STATUS_WRITES.park.from as readonly string[]).includes(row.status)) return "fenced";
    if (row.cancel_requested_at !== null) return "cancel_requested";
    await tx.run(sql`UPDATE runs SET status = ${toStatus("park")}, waiting_tool = ${park.tool}, tool_result = NULL,
        parked_at = ${now}, parked_state = ${tx.json(park.state ?? null)}, worker_id = NULL, claim_token = NULL,
        updated_at = ${now}
      WHERE id = ${claim.runId}`);
    await insertEvent(tx, claim.runId, "run.waiting_tool", now, { name: park.tool, parked: true });
    return { sessionId: row.session_id };
  });
  if (typeof parked === "string") return parked;
  ctx.noteCountedWrite();
  ctx.wrote([parked.sessionId]);
  return "parked";
}

/** A parked run whose result has arrived → running under this claim, with what it saved. */
export async function resumeRun(ctx: OpContext, claim: Claim, workerId: string): Promise<StartResult> {
  const { db } = ctx;
  const now = ctx.now();
  const resumed = await db.transaction(async (tx): Promise<StartResult> => {
    const [row] = await tx.all<RunRow & { parked_state: unknown; tool_result: unknown }>(sql`
      SELECT ${runColumns}, parked_state, tool_result FROM runs WHERE id = ${claim.runId} ${tx.forUpdate}`);
    if (!row) return { kind: "gone", status: null };
    const resumable =
      row.parked_at !== null &&
      row.tool_result !== null &&
      (STATUS_WRITES.resumeParked.from as readonly string[]).includes(row.status);
    if (!resumable) return { kind: "gone", status: row.status as Run["status"] };
    const [updated] =
      await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("resumeParked")}, ${UNPARKED},
        worker_id = ${workerId}, claim_token = ${claim.token}, heartbeat_at = ${now}, updated_at = ${now}
      WHERE id = ${claim.runId} RETURNING ${runColumns}`);
    await insertEvent(tx, claim.runId, "run.resumed", now, {
      name: row.waiting_tool,
      workerId,
      parked: true,
    });
    const { value } = tx.decodeJson(row.tool_result) as { value: unknown };
    return {
      kind: "started",
      run: decodeRun(updated!, db),
      resumed: {
        tool: row.waiting_tool ?? "",
        state: tx.decodeJson(row.parked_state) ?? null,
        toolResult: value,
      },
    };
  });
  if (resumed.kind === "started") {
    ctx.noteCountedWrite();
    ctx.wrote([resumed.run.sessionId]);
  }
  return resumed;
}

/** Ends the parked runs past their deadline (startedAt + timeoutMs) `timed_out`, the most overdue first. */
export async function expireParkedRuns(ctx: OpContext, limit: number): Promise<Run[]> {
  const { db } = ctx;
  const now = ctx.now();
  const expired = await db.transaction(async (tx) => {
    // The expression and predicate of runs_parked_deadline_idx, as written there.
    const due = await tx.all<{ id: string; timeout_ms: number }>(sql`SELECT id, timeout_ms FROM runs
      WHERE parked_at IS NOT NULL AND (started_at + timeout_ms) < ${now}
      ORDER BY (started_at + timeout_ms) LIMIT ${limit} ${tx.forUpdate}`);
    const ended: RunRow[] = [];
    for (const { id, timeout_ms } of due) {
      const error = runTimedOutError(timeout_ms);
      const [row] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("timeOutParked")}, ${UNPARKED},
          error_code = ${error.errorCode}, error_message = ${error.errorMessage}, ended_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND parked_at IS NOT NULL AND status IN (${fromStatuses("timeOutParked")})
        RETURNING ${runColumns}`);
      if (row) ended.push(row);
    }
    if (ended.length > 0) {
      await insertEvents(
        tx,
        ended.map((r) => ({
          runId: r.id,
          type: "run.timed_out" as const,
          data: { errorCode: r.error_code, errorMessage: r.error_message, while: "parked" },
        })),
        now,
      );
    }
    return ended;
  });
  if (expired.length > 0) ctx.noteCountedWrite();
  ctx.wrote(expired.map((r) => r.session_id));
  return expired.map((r) => decodeRun(r, db));
}
