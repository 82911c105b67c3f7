import type { Run } from "@oah/contract";
import { sql } from "drizzle-orm";
import { decodeRun, type RunRow } from "../rows";
import { ACTIVE, runColumns } from "../sql-fragments";
import type { OpContext } from "./context";

export interface StaleRunQuery {
  /** Active runs whose last sign of life is older than this (epoch ms). */
  lastSeenBefore: number;
  /** Keyset: runs after this one, in (session, run id) order. */
  after?: { sessionId: string; id: string };
  limit: number;
}

/** Executing runs not seen since `lastSeenBefore`, in (session, run id) order; parked runs are never stale. */
export async function findStaleRuns({ db }: OpContext, query: StaleRunQuery): Promise<Run[]> {
  const rows = await db.all<RunRow>(sql`SELECT ${runColumns} FROM runs
    WHERE status IN (${ACTIVE}) AND parked_at IS NULL AND COALESCE(heartbeat_at, started_at, created_at) < ${query.lastSeenBefore}
      ${query.after ? sql`AND (session_id, id) > (${query.after.sessionId}, ${query.after.id})` : sql``}
    ORDER BY session_id, id LIMIT ${query.limit}`);
  return rows.map((r) => decodeRun(r, db));
}
