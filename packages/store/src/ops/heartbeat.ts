import { sql } from "drizzle-orm";
import { ACTIVE, statusOfRuns } from "../sql-fragments";
import type { Claim } from "./claim";
import type { OpContext } from "./context";

export interface HeartbeatResult {
  /** Claims whose run is no longer theirs: their executions must stop and write nothing more. */
  fenced: string[];
  /** Runs whose cancel was requested (the fallback when a cancel notification was missed). */
  cancelRequested: string[];
  /** Runs a later submission to their session asked to stop at their next step boundary (docs/spec.md §5). */
  interruptRequested: string[];
  /** Waiting runs whose tool result has arrived (the fallback when its notification was missed). */
  toolResultReady: string[];
}

/** An active run a heartbeat reached with its claim. */
interface HeartbeatRow {
  id: string;
  claim_token: string;
  cancel_requested_at: number | null;
  cancel_reason: string | null;
  has_tool_result: number | boolean;
}

/** Marks the claims' runs alive; says which claims are fenced out and which runs have news. */
export async function heartbeat(ctx: OpContext, claims: Claim[]): Promise<HeartbeatResult> {
  if (claims.length === 0)
    return { fenced: [], cancelRequested: [], interruptRequested: [], toolResultReady: [] };
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
    RETURNING id, claim_token, cancel_requested_at, cancel_reason, tool_result IS NOT NULL AS has_tool_result`,
    "heartbeat",
  );
  // Claims that reached no active run of theirs are fenced.
  const alive = new Set(rows.map((r) => `${r.id} ${r.claim_token}`));
  return {
    fenced: claims.filter((c) => !alive.has(`${c.runId} ${c.token}`)).map((c) => c.runId),
    cancelRequested: rows
      .filter((r) => r.cancel_requested_at !== null && r.cancel_reason === null)
      .map((r) => r.id),
    interruptRequested: rows
      .filter((r) => r.cancel_requested_at !== null && r.cancel_reason !== null)
      .map((r) => r.id),
    toolResultReady: rows.filter((r) => Boolean(r.has_tool_result)).map((r) => r.id),
  };
}
