import type { StorageRunFilters } from "@oah/contract";
import { type SQL, sql } from "drizzle-orm";

/**
 * The admin list's query: the API's filters (createdFrom/createdTo as epoch ms, from
 * inclusive, to exclusive; each filter's match below) and the page.
 */
export type StorageRunQuery = Omit<StorageRunFilters, "createdFrom" | "createdTo"> & {
  createdFrom?: number;
  createdTo?: number;
  /** Runs strictly after this position of the (createdAt desc, id desc) order. */
  after?: { createdAt: number; id: string };
  limit: number;
};

/** The Storage filters of a query, without its page. */
export type StorageRunFilterQuery = Omit<StorageRunQuery, "after" | "limit">;

/** How a Storage filter's value meets its column. */
type FilterMatch = "anyOf" | "equals" | "atLeast" | "below";

/** The filters of a StorageRunQuery: every key but the page's. */
type StorageFilterName = Exclude<keyof StorageRunQuery, "after" | "limit">;

/**
 * Each Storage filter of the admin list (docs/spec.md §9), described once: the column of `runs`
 * it reads and how it matches, of which the list and the bulk jobs make their WHERE. A filter
 * added to the API's input is refused by the type checker until it has its line here.
 */
const STORAGE_FILTER_COLUMNS = {
  status: { column: "status", match: "anyOf" },
  errorCode: { column: "error_code", match: "anyOf" },
  recoveryState: { column: "recovery_state", match: "anyOf" },
  recoveryReason: { column: "recovery_reason", match: "anyOf" },
  sessionId: { column: "session_id", match: "equals" },
  workspaceId: { column: "workspace_id", match: "equals" },
  runId: { column: "id", match: "equals" },
  forkedFrom: { column: "forked_from", match: "equals" },
  createdFrom: { column: "created_at", match: "atLeast" },
  createdTo: { column: "created_at", match: "below" },
} as const satisfies Record<StorageFilterName, { column: string; match: FilterMatch }>;

/** The conditions of the Storage filters a query sets, on `runs` (none for a filter it leaves out). */
export function storageFilterSql(query: StorageRunFilterQuery): SQL[] {
  return (Object.keys(STORAGE_FILTER_COLUMNS) as StorageFilterName[]).flatMap((name) => {
    const value = query[name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) return [];
    const { column, match } = STORAGE_FILTER_COLUMNS[name];
    const col = sql.raw(column);
    if (match === "anyOf") {
      const list = sql.join(
        (value as readonly string[]).map((v) => sql`${v}`),
        sql`, `,
      );
      return [sql`${col} IN (${list})`];
    }
    if (match === "atLeast") return [sql`${col} >= ${value}`];
    if (match === "below") return [sql`${col} < ${value}`];
    return [sql`${col} = ${value}`];
  });
}

/** The API's Storage filters as the stores match them (times as epoch ms). */
export function storageQueryOf(filters: StorageRunFilters): StorageRunFilterQuery {
  return {
    ...filters,
    createdFrom: filters.createdFrom ? Date.parse(filters.createdFrom) : undefined,
    createdTo: filters.createdTo ? Date.parse(filters.createdTo) : undefined,
  };
}
