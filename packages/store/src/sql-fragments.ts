import { ACTIVE_STATUSES, type RunStatus, STATUS_WRITES, type StatusWriteName, writeTarget } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { RUN_COLUMNS, SUMMARY_COLUMNS } from "./rows";

/** Every column of a run, as the store's queries select and return them. */
export const runColumns = sql.raw(RUN_COLUMNS);
/** Every column but the input and output (RunSummary). */
export const summaryColumns = sql.raw(SUMMARY_COLUMNS);

/**
 * Statuses inlined as literals, not parameters: SQLite uses a partial index only
 * when the query repeats the index's WHERE terms literally. Code constants only.
 */
function statuses(values: readonly RunStatus[]): SQL {
  return sql.raw(values.map((v) => `'${v}'`).join(", "));
}

export const ACTIVE = statuses(ACTIVE_STATUSES);

/** The statuses a write moves runs from (core's STATUS_WRITES): the guard of its WHERE. */
export const fromStatuses = (write: StatusWriteName): SQL => statuses(STATUS_WRITES[write].from);

/** The one status a write sets, for the writes that set only one. */
export const toStatus = (write: StatusWriteName): SQL => statuses([writeTarget(write)]);
export const UNFINISHED = statuses(["queued", ...ACTIVE_STATUSES]);

/**
 * `runs.status` as an expression no index matches. Transitions address runs by id;
 * a status index must never drive them, yet its statistics, stale after a burst of
 * submissions, can make it look cheaper (and a prepared statement keeps that plan).
 */
export const statusOfRuns = sql.raw("(runs.status || '')");
