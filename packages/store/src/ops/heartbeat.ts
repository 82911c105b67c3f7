import { sql } from "drizzle-orm";
import type { Claim, HeartbeatResult } from "../run-store";
import { ACTIVE, statusOfRuns } from "../sql-fragments";
import type { OpContext } from "./context";

/** Marks the claims' runs alive; says which claims are fenced out and which runs have news. */
export async function heartbeat(ctx: OpContext, claims: Claim[]): Promise<HeartbeatResult> {
  if (claims.length === 0) return { fenced: [], cancelRequested: [], toolResultReady: [] };
  const { db } = ctx;
  const now = ctx.now();
  const pairs = db.rowsOf(
    2,
    claims.map((c) => [c.runId, c.token]),
  );
  const rows = await db.all<{
    id: string;
    claim_token: string;
    cancel_requested_at: number | null;
    has_tool_result: number | boolean;
  }>(
    sql`
    UPDATE runs SET heartbeat_at = ${now}
    WHERE ${statusOfRuns} IN (${ACTIVE}) AND (id, claim_token) IN (SELECT column1, column2 FROM ${pairs})
    RETURNING id, claim_token, cancel_requested_at, tool_result IS NOT NULL AS has_tool_result`,
    "heartbeat",
  );
  const alive = new Set(rows.map((r) => `${r.id} ${r.claim_token}`));
  return {
    fenced: claims.filter((c) => !alive.has(`${c.runId} ${c.token}`)).map((c) => c.runId),
    cancelRequested: rows.filter((r) => r.cancel_requested_at !== null).map((r) => r.id),
    toolResultReady: rows.filter((r) => Boolean(r.has_tool_result)).map((r) => r.id),
  };
}
