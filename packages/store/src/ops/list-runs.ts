import type { RunSummary } from "@oah/contract";
import { sql } from "drizzle-orm";
import { decodeRunSummary, type RunRow } from "../rows";
import { summaryColumns } from "../sql-fragments";
import { type StorageRunQuery, storageFilterSql } from "../storage-filters";
import type { OpContext } from "./context";

/** The admin list of runs: filtered, newest first, a keyset page at a time. */
export async function listRuns({ db }: OpContext, query: StorageRunQuery): Promise<RunSummary[]> {
  const where = storageFilterSql(query);
  if (query.after) where.push(sql`(created_at, id) < (${query.after.createdAt}, ${query.after.id})`);
  const filter = where.length > 0 ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``;
  const rows = await db.all<RunRow>(sql`SELECT ${summaryColumns} FROM runs ${filter}
    ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`);
  return rows.map((r) => decodeRunSummary(r, db));
}
