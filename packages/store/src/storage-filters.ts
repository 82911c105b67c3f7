import type { StorageRunFilters } from "@oah/contract";
import type { StorageRunFilterQuery, StorageRunQuery } from "./run-store";

/** How a Storage filter's value meets its column. */
export type FilterMatch = "anyOf" | "equals" | "atLeast" | "below";

/** The filters of a StorageRunQuery: every key but the page's. */
export type StorageFilterName = Exclude<keyof StorageRunQuery, "after" | "limit">;

/**
 * Each Storage filter of the admin list (docs/spec.md §9), described once for every store: the
 * column of `runs` it reads and how it matches. The SQL stores make their WHERE of it, the
 * in-memory store its predicate; a filter added to the API's input is refused by the
 * type checker until it has its line here.
 */
export const STORAGE_FILTER_COLUMNS = {
  status: { column: "status", match: "anyOf" },
  errorCode: { column: "error_code", match: "anyOf" },
  recoveryState: { column: "recovery_state", match: "anyOf" },
  recoveryReason: { column: "recovery_reason", match: "anyOf" },
  sessionId: { column: "session_id", match: "equals" },
  workspaceId: { column: "workspace_id", match: "equals" },
  runId: { column: "id", match: "equals" },
  createdFrom: { column: "created_at", match: "atLeast" },
  createdTo: { column: "created_at", match: "below" },
} as const satisfies Record<StorageFilterName, { column: string; match: FilterMatch }>;

/** One filter the query sets, with its value: a condition on one column. */
export interface FilterCondition {
  column: string;
  match: FilterMatch;
  value: string | number | readonly string[];
}

/** The filters a query sets (an empty list sets none). */
export function filterConditions(query: StorageRunFilterQuery): FilterCondition[] {
  return (Object.keys(STORAGE_FILTER_COLUMNS) as StorageFilterName[]).flatMap((name) => {
    const value = query[name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) return [];
    return [{ ...STORAGE_FILTER_COLUMNS[name], value: value as FilterCondition["value"] }];
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
