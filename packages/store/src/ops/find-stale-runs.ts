import type { Run } from "@oah/contract";
import { sql } from "drizzle-orm";
import { decodeRun, type RunRow } from "../rows";
import type { StaleRunQuery } from "../run-store";
import { ACTIVE, runColumns } from "../sql-fragments";
import type { OpContext } from "./context";

/** Executing runs not seen since `lastSeenBefore`, in (session, run id) order; parked runs are never stale. */
export async function findStaleRuns({ db }: OpContext, query: StaleRunQuery): Promise<Run[]> {
  const rows = await db.all<RunRow>(sql`SELECT ${runColumns} FROM runs
    WHERE status IN (${ACTIVE}) AND parked_at IS NULL AND COALESCE(heartbeat_at, started_at, created_at) < ${query.lastSeenBefore}
      ${query.after ? sql`AND (session_id, id) > (${query.after.sessionId}, ${query.after.id})` : sql``}
    ORDER BY session_id, id LIMIT ${query.limit}`);
  return rows.map((r) => decodeRun(r, db));
}
