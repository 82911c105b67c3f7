import { sql } from "drizzle-orm";
import type { Claim, HeartbeatResult } from "../run-store";
import { type HeartbeatRow, heartbeatResult } from "../run-writes";
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
  const rows = await db.all<HeartbeatRow>(
    sql`
    UPDATE runs SET heartbeat_at = ${now}
    WHERE ${statusOfRuns} IN (${ACTIVE}) AND (id, claim_token) IN (SELECT column1, column2 FROM ${pairs})
    RETURNING id, claim_token, cancel_requested_at, tool_result IS NOT NULL AS has_tool_result`,
    "heartbeat",
  );
  return heartbeatResult(claims, rows);
}
