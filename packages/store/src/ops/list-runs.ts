import type { RunSummary } from "@oah/contract";
import { type SQL, sql } from "drizzle-orm";
import { decodeRunSummary, type RunRow } from "../rows";
import type { StorageRunQuery } from "../run-store";
import { summaryColumns } from "../sql-fragments";
import { filterConditions } from "../storage-filters";
import type { OpContext } from "./context";

/** The admin list of runs: filtered, newest first, a keyset page at a time. */
export async function listRuns({ db }: OpContext, query: StorageRunQuery): Promise<RunSummary[]> {
  const where: SQL[] = filterConditions(query).map(({ column, match, value }) => {
    const col = sql.raw(column);
    if (match === "anyOf") {
      const list = sql.join(
        (value as readonly string[]).map((v) => sql`${v}`),
        sql`, `,
      );
      return sql`${col} IN (${list})`;
    }
    if (match === "atLeast") return sql`${col} >= ${value}`;
    if (match === "below") return sql`${col} < ${value}`;
    return sql`${col} = ${value}`;
  });
  if (query.after) where.push(sql`(created_at, id) < (${query.after.createdAt}, ${query.after.id})`);
  const filter = where.length > 0 ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``;
  const rows = await db.all<RunRow>(sql`SELECT ${summaryColumns} FROM runs ${filter}
    ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`);
  return rows.map((r) => decodeRunSummary(r, db));
}
