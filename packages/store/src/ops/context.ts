import { sql } from "drizzle-orm";
import { GroupCommit } from "../group-commit";
import type { SqlClient } from "../sql/client";

/**
 * Who hears, once a write committed, the sessions whose runs it wrote (the engine gives its
 * event bus, so that the streams of those sessions read at once, in any process).
 */
export type WriteAnnouncer = (sessionIds: string[]) => void;

/**
 * An operation whose calls made while a batch is in flight go together into the next one
 * (group-commit.ts): how it writes a batch, how many calls a batch takes at most, and how many
 * batches may be in flight at once (above 1 only for reads, whose order does not matter).
 */
export interface BatchedOp<Request, Result> {
  write(ctx: OpContext, batch: Request[]): Promise<Result[]>;
  maxBatch?: number;
  concurrency?: number;
}

/** What every operation of the store works with. */
export interface OpContext {
  readonly db: SqlClient;
  /** The store's clock (epoch ms). */
  readonly now: () => number;
  /** Called after every statement that changes the statuses of runs (see foldCounts). */
  readonly noteCountedWrite: () => void;
  /**
   * The after-commit hook: an operation that wrote runs' events (or their statuses) names their
   * sessions here once its transaction committed, and every announcer of the store hears them.
   */
  readonly wrote: (sessionIds: Iterable<string>) => void;
  /** This store's group commit of `op`: one for each batched operation, made at its first call. */
  readonly batch: <Request, Result>(op: BatchedOp<Request, Result>) => GroupCommit<Request, Result>;
}

export interface OpContextOptions {
  now: () => number;
  /** How many status-changing writes a host makes between two folds of the overview's counters. */
  foldCountsEvery: number;
  /** Told of every committed write's sessions; the store's handle adds to it (announceWrites). */
  announcers: readonly WriteAnnouncer[];
}

export function opContext(db: SqlClient, options: OpContextOptions): OpContext {
  let unfoldedWrites = 0;
  const batches = new Map<object, unknown>();
  const ctx: OpContext = {
    db,
    now: options.now,
    noteCountedWrite: () => {
      if (db.dialect !== "postgres" || ++unfoldedWrites < options.foldCountsEvery) return;
      unfoldedWrites = 0;
      foldCounts(db);
    },
    wrote: (sessionIds) => {
      if (options.announcers.length === 0) return;
      const unique = [...new Set(sessionIds)];
      if (unique.length === 0) return;
      for (const announce of options.announcers) announce(unique);
    },
    batch: <Request, Result>(op: BatchedOp<Request, Result>) => {
      let commit = batches.get(op) as GroupCommit<Request, Result> | undefined;
      if (!commit) {
        commit = new GroupCommit((batch: Request[]) => op.write(ctx, batch), op.maxBatch, op.concurrency);
        batches.set(op, commit);
      }
      return commit;
    },
  };
  return ctx;
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
