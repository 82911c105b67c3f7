import type { RunEventType } from "@oah/core";
import { sql } from "drizzle-orm";
import { encodeJson, type SqlClient } from "../sql/client";

export interface NewEvent {
  runId: string;
  type: RunEventType;
  data: Record<string, unknown> | undefined;
}

/** Events of runs, all at one time, in one statement (in their order). */
export async function insertEvents(tx: SqlClient, events: readonly NewEvent[], at: number): Promise<void> {
  const rows = tx.rowsOf(
    3,
    events.map((e) => [e.runId, e.type, e.data === undefined ? null : encodeJson(e.data)]),
  );
  await tx.run(
    sql`INSERT INTO run_events (run_id, type, at, data)
      SELECT column1, column2, CAST(${at} AS BIGINT), ${tx.asJson(sql`column3`)} FROM ${rows}`,
    "insert_events",
  );
}

export function insertEvent(
  tx: SqlClient,
  runId: string,
  type: RunEventType,
  at: number,
  data?: Record<string, unknown>,
): Promise<void> {
  return insertEvents(tx, [{ runId, type, data }], at);
}
