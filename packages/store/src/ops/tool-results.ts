import type { Run } from "@oah/contract";
import type { QueueEntry, RunStatus } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, entryOf, type RunRow } from "../rows";
import { fromStatuses, runColumns, toStatus } from "../sql-fragments";
import type { Claim } from "./claim";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";

export type ToolResultDelivery =
  /** `resume`: the run is parked, and this entry puts it back at the front of its session's queue. */
  | { kind: "accepted"; run: Run; resume: QueueEntry | null }
  | { kind: "unknown_run" }
  | { kind: "not_waiting"; status: RunStatus; waitingTool: string | null }
  | { kind: "wrong_name"; waitingTool: string };

export type ToolResultTake = { kind: "taken"; output: unknown } | { kind: "pending" } | { kind: "fenced" };

/** running → waiting_tool, waiting for the tool `name`; false when fenced out. */
export async function waitForTool(ctx: OpContext, claim: Claim, name: string): Promise<boolean> {
  const now = ctx.now();
  const sessionId = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.all<{
      session_id: string;
    }>(sql`UPDATE runs SET status = ${toStatus("waitForTool")}, waiting_tool = ${name},
        tool_result = CASE WHEN waiting_tool = ${name} THEN tool_result END, updated_at = ${now}
      WHERE id = ${claim.runId} AND claim_token = ${claim.token} AND status IN (${fromStatuses("waitForTool")})
      RETURNING session_id`);
    if (!row) return null;
    await insertEvent(tx, claim.runId, "run.waiting_tool", now, { name });
    return row.session_id;
  });
  if (sessionId === null) return false;
  ctx.wrote([sessionId]);
  return true;
}

/**
 * A client's result for a waiting run; kept on the run until its execution takes it (hold), or
 * until a claim resumes it (parked: the answer carries the resume's queue entry).
 */
export async function deliverToolResult(
  ctx: OpContext,
  runId: string,
  name: string,
  output: unknown,
): Promise<ToolResultDelivery> {
  const { db } = ctx;
  const now = ctx.now();
  const delivery = await db.transaction(async (tx): Promise<ToolResultDelivery> => {
    const [row] = await tx.all<RunRow & { pending: number | boolean }>(sql`SELECT ${runColumns},
        tool_result IS NOT NULL AS pending FROM runs WHERE id = ${runId} ${tx.forUpdate}`);
    if (!row) return { kind: "unknown_run" } as const;
    if (row.status !== "waiting_tool" || row.pending) {
      return {
        kind: "not_waiting",
        status: row.status as RunStatus,
        waitingTool: row.waiting_tool,
      } as const;
    }
    if (row.waiting_tool !== name)
      return { kind: "wrong_name", waitingTool: row.waiting_tool ?? "" } as const;
    // Stored wrapped, so that a JSON null result is told apart from "no result yet". A parked run
    // now awaits a slot: its wait for one starts here.
    const [updated] = await tx.all<RunRow>(sql`UPDATE runs SET tool_result = ${tx.json({ value: output })},
        enqueued_at = CASE WHEN parked_at IS NULL THEN enqueued_at ELSE ${now} END, updated_at = ${now}
      WHERE id = ${runId} RETURNING ${runColumns}`);
    return {
      kind: "accepted",
      run: decodeRun(updated!, db),
      resume: updated!.parked_at === null ? null : entryOf(updated!),
    } as const;
  });
  if (delivery.kind === "accepted") ctx.wrote([delivery.run.sessionId]);
  return delivery;
}

/** waiting_tool → running with the delivered result, once there is one. */
export async function takeToolResult(ctx: OpContext, claim: Claim): Promise<ToolResultTake> {
  const now = ctx.now();
  const taken = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.all<{
      session_id: string;
      status: string;
      waiting_tool: string | null;
      tool_result: unknown;
    }>(sql`SELECT session_id, status, waiting_tool, tool_result FROM runs
      WHERE id = ${claim.runId} AND claim_token = ${claim.token} ${tx.forUpdate}`);
    if (row?.status !== "waiting_tool") return { take: { kind: "fenced" }, sessionId: null } as const;
    if (row.tool_result === null) return { take: { kind: "pending" }, sessionId: null } as const;
    await tx.run(sql`UPDATE runs SET status = ${toStatus("resumeWithToolResult")}, waiting_tool = NULL,
        tool_result = NULL, updated_at = ${now}
      WHERE id = ${claim.runId} AND status IN (${fromStatuses("resumeWithToolResult")})`);
    await insertEvent(tx, claim.runId, "run.resumed", now, { name: row.waiting_tool });
    const { value } = tx.decodeJson(row.tool_result) as { value: unknown };
    return { take: { kind: "taken", output: value } as const, sessionId: row.session_id };
  });
  if (taken.sessionId !== null) ctx.wrote([taken.sessionId]);
  return taken.take;
}
