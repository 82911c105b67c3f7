import type { ModelUsageHour } from "@oah/contract";
import { type SQL, sql } from "drizzle-orm";
import type { Claim } from "./claim";
import type { OpContext } from "./context";

/** What one model call spent, as its step's end counts it to its run's workspace. */
export interface ModelCallUsage {
  promptTokens: number;
  completionTokens: number;
}

const HOUR_MS = 3_600_000;

/**
 * Adds one model call to its run's workspace's hour (the hour `at` falls in), in the statement or
 * transaction of the call's step end: `source` is where the row comes from (the ended step,
 * for the fence). Every call of a workspace in an hour adds to one row: on PostgreSQL its lock
 * is held only for that statement.
 */
export function countModelCall(claim: Claim, usage: ModelCallUsage, at: number, source: SQL): SQL {
  const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
  return sql`INSERT INTO model_usage (workspace_id, hour, calls, prompt_tokens, completion_tokens)
    SELECT (SELECT workspace_id FROM runs WHERE id = ${claim.runId}), CAST(${hour} AS BIGINT), 1,
      CAST(${Math.max(0, Math.round(usage.promptTokens))} AS BIGINT),
      CAST(${Math.max(0, Math.round(usage.completionTokens))} AS BIGINT)
    ${source}
    ON CONFLICT (workspace_id, hour) DO UPDATE SET calls = model_usage.calls + 1,
      prompt_tokens = model_usage.prompt_tokens + excluded.prompt_tokens,
      completion_tokens = model_usage.completion_tokens + excluded.completion_tokens`;
}

/**
 * The model calls and tokens of each hour from the one `from` falls in to `to` (exclusive), by
 * workspace (all of them, or those named), oldest first.
 */
export async function modelUsage(
  { db }: OpContext,
  range: { from: number; to: number; workspaceIds?: readonly string[] },
): Promise<ModelUsageHour[]> {
  const named =
    range.workspaceIds === undefined
      ? sql``
      : sql`AND workspace_id IN (SELECT column1 FROM ${db.rowsOf(
          1,
          range.workspaceIds.map((id) => [id]),
        )})`;
  if (range.workspaceIds?.length === 0) return [];
  const rows = await db.all<{
    workspace_id: string;
    hour: number | string;
    calls: number | string;
    prompt_tokens: number | string;
    completion_tokens: number | string;
  }>(sql`SELECT workspace_id, hour, calls, prompt_tokens, completion_tokens FROM model_usage
    WHERE hour >= ${Math.floor(range.from / HOUR_MS) * HOUR_MS} AND hour < ${range.to} ${named} ORDER BY hour, workspace_id`);
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    hour: new Date(Number(r.hour)).toISOString(),
    calls: Number(r.calls),
    promptTokens: Number(r.prompt_tokens),
    completionTokens: Number(r.completion_tokens),
  }));
}
