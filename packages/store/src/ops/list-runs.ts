import type { RunSummary } from "@oah/contract";
import { type SQL, sql } from "drizzle-orm";
import { decodeRunSummary, type RunRow } from "../rows";
import type { StorageRunQuery } from "../run-store";
import { summaryColumns } from "../sql-fragments";
import type { OpContext } from "./context";

/** The admin list of runs: filtered, newest first, a keyset page at a time. */
export async function listRuns({ db }: OpContext, query: StorageRunQuery): Promise<RunSummary[]> {
  const where: SQL[] = [];
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (!values || values.length === 0) return;
    const list = sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    );
    where.push(sql`${sql.raw(column)} IN (${list})`);
  };
  anyOf("status", query.status);
  anyOf("error_code", query.errorCode);
  anyOf("recovery_state", query.recoveryState);
  if (query.sessionId !== undefined) where.push(sql`session_id = ${query.sessionId}`);
  if (query.workspaceId !== undefined) where.push(sql`workspace_id = ${query.workspaceId}`);
  if (query.runId !== undefined) where.push(sql`id = ${query.runId}`);
  if (query.createdFrom !== undefined) where.push(sql`created_at >= ${query.createdFrom}`);
  if (query.createdTo !== undefined) where.push(sql`created_at < ${query.createdTo}`);
  if (query.after) where.push(sql`(created_at, id) < (${query.after.createdAt}, ${query.after.id})`);
  const filter = where.length > 0 ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``;
  const rows = await db.all<RunRow>(sql`SELECT ${summaryColumns} FROM runs ${filter}
    ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`);
  return rows.map((r) => decodeRunSummary(r, db));
}
