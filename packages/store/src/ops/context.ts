import { sql } from "drizzle-orm";
import type { SqlClient } from "../sql/client";

/** What every operation of the SQL store works with. */
export interface OpContext {
  readonly db: SqlClient;
  /** The store's clock (epoch ms). */
  readonly now: () => number;
  /** Called after every statement that changes the statuses of runs (see foldCounts). */
  readonly noteCountedWrite: () => void;
}

export function opContext(db: SqlClient, now: () => number, foldCountsEvery: number): OpContext {
  let unfoldedWrites = 0;
  return {
    db,
    now,
    noteCountedWrite: () => {
      if (db.dialect !== "postgres" || ++unfoldedWrites < foldCountsEvery) return;
      unfoldedWrites = 0;
      foldCounts(db);
    },
  };
}

/**
 * On PostgreSQL, the overview's counters are appended to by every statement that
 * changes runs; every so many writes, a host folds them into one row per counter
 * (in the background: until then, the counts are right, only longer to sum).
 * Concurrent folds are safe: each row is deleted, and so counted, once.
 */
function foldCounts(db: SqlClient): void {
  db.run(
    sql`WITH gone AS (DELETE FROM run_counts RETURNING counter, n)
      INSERT INTO run_counts (counter, n) SELECT counter, sum(n) FROM gone GROUP BY counter HAVING sum(n) <> 0`,
    "fold_counts",
  ).catch(() => {
    // Housekeeping only: the next fold takes these rows too.
  });
}
