import type { RunStatus } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, entryOf, type RunRow } from "../rows";
import type { Claim, ToolResultDelivery, ToolResultTake } from "../run-store";
import { fromStatuses, runColumns, toStatus } from "../sql-fragments";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";

/** running → waiting_tool, waiting for the tool `name`; false when fenced out. */
export async function waitForTool(ctx: OpContext, claim: Claim, name: string): Promise<boolean> {
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const changed =
      await tx.run(sql`UPDATE runs SET status = ${toStatus("waitForTool")}, waiting_tool = ${name},
        tool_result = NULL, updated_at = ${now}
      WHERE id = ${claim.runId} AND claim_token = ${claim.token} AND status IN (${fromStatuses("waitForTool")})`);
    if (changed === 0) return false;
    await insertEvent(tx, claim.runId, "run.waiting_tool", now, { name });
    return true;
  });
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
  return db.transaction(async (tx) => {
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
}

/** waiting_tool → running with the delivered result, once there is one. */
export async function takeToolResult(ctx: OpContext, claim: Claim): Promise<ToolResultTake> {
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.all<{ status: string; waiting_tool: string | null; tool_result: unknown }>(sql`
      SELECT status, waiting_tool, tool_result FROM runs
      WHERE id = ${claim.runId} AND claim_token = ${claim.token} ${tx.forUpdate}`);
    if (row?.status !== "waiting_tool") return { kind: "fenced" } as const;
    if (row.tool_result === null) return { kind: "pending" } as const;
    await tx.run(sql`UPDATE runs SET status = ${toStatus("resumeWithToolResult")}, waiting_tool = NULL,
        tool_result = NULL, updated_at = ${now}
      WHERE id = ${claim.runId} AND status IN (${fromStatuses("resumeWithToolResult")})`);
    await insertEvent(tx, claim.runId, "run.resumed", now, { name: row.waiting_tool });
    const { value } = tx.decodeJson(row.tool_result) as { value: unknown };
    return { kind: "taken", output: value } as const;
  });
}
