import { sqliteFileFor } from "@oah/store";
import Database from "better-sqlite3";
import pg from "pg";

/** Where runs are written: a PostgreSQL store, or the SQLite file of an embedded store's data directory. */
export type SeedTarget = { databaseUrl: string } | { dataDir: string };

/** How many runs of each kind, written in this order (so in creation order). */
export interface SeededRunCounts {
  /** As recovery leaves them: `worker_recovery_failed`, `max_attempts_exhausted`, a dead letter. */
  quarantined?: number;
  /** Failures recovery never touched: a requeue refuses them. */
  plainFailed?: number;
  completed?: number;
  /** Waiting for a slot: in the queue once a process that owns the store refills it. */
  queued?: number;
  /** Every run's input; `{"steps": []}` by default. */
  input?: unknown;
}

/** How a dialect writes the run's time (`$2`) and the numbers `first`…`last` as `i`. */
interface Dialect {
  at: string;
  numbers: (first: string, last: string) => string;
}

/**
 * Runs per statement on PostgreSQL: a statement of 100,000 took seconds, and while it is open no
 * event stream of the same server settles (their snapshots span every database).
 */
const POSTGRES_SLICE = 20_000;

/** The recovery metadata of a quarantined run, as recovery writes it. */
function quarantineMetadata(at: number): string {
  return JSON.stringify({
    recoveryAttempts: 3,
    recovery: {
      state: "quarantined",
      strategy: "requeue_running",
      attempts: 3,
      maxAttempts: 3,
      lastOutcome: { from: "running", to: "failed" },
      lastRecoveredBy: "test-host",
      lastRecoveredAt: new Date(at).toISOString(),
      reason: "max_attempts_exhausted",
      manualRequeueCount: 0,
      lastManualRequeueAt: null,
      lastManualRequeueBy: null,
      deadLetter: { status: "quarantined", reason: "max_attempts_exhausted", at: new Date(at).toISOString() },
    },
  });
}

/**
 * Runs of workspace `ws` written straight into a store (`<ws>-<i>` sessions, one run each, created a
 * millisecond apart, the last a minute ago): a statement per table (per 20,000 runs on PostgreSQL),
 * 100,000 runs in a second or two where submissions would take a minute. The store must have been migrated (opened once by oah).
 * Up to 1,000,000 runs a call: their ids are the time of the first and their number.
 */
export async function loadRuns(target: SeedTarget, ws: string, counts: SeededRunCounts): Promise<void> {
  const q = counts.quarantined ?? 0;
  const f = q + (counts.plainFailed ?? 0);
  const c = f + (counts.completed ?? 0);
  const total = c + (counts.queued ?? 0);
  // The last made a minute ago: every one made before now.
  const at = Date.now() - 60_000 - total;
  // The runs' SELECT for both dialects: `i` is a run's number, and its bounds say its kind.
  // Parameters: $1 ws, $2 at, $3 failed up to, $4 ended up to, $5 from, $6 quarantined up to, $7 metadata,
  // $8 input, $9 to.
  const runs = (dialect: Dialect & { input: string; id: string; metadata: string }) => `
    INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, priority, executor, input, status, error_code,
      error_message, created_at, enqueued_at, started_at, ended_at, timeout_ms, worker_id, attempt, recovery_state,
      recovery_reason, recovered_at, metadata, updated_at)
    SELECT ${dialect.id}, $1 || '-' || i, 1, 1, $1, 'normal', 'script', ${dialect.input},
      CASE WHEN i <= $3 THEN 'failed' WHEN i <= $4 THEN 'completed' ELSE 'queued' END,
      CASE WHEN i <= $6 THEN 'worker_recovery_failed' WHEN i <= $3 THEN 'tool_failed' END,
      CASE WHEN i <= $3 THEN 'failed in the test' END,
      ${dialect.at} + i, ${dialect.at} + i, CASE WHEN i <= $4 THEN ${dialect.at} + i END,
      CASE WHEN i <= $4 THEN ${dialect.at} + i + 1 END, 60000,
      CASE WHEN i <= $4 THEN 'test-host/w1' END, CASE WHEN i <= $4 THEN 3 ELSE 0 END,
      CASE WHEN i <= $6 THEN 'quarantined' END, CASE WHEN i <= $6 THEN 'max_attempts_exhausted' END,
      CASE WHEN i <= $6 THEN ${dialect.at} + i END, CASE WHEN i <= $6 THEN ${dialect.metadata} ELSE '{}' END,
      ${dialect.at} + i
    FROM ${dialect.numbers("$5", "$9")}`;
  // Parameters: $1 ws, $2 at, $3 from, $4 to.
  const sessions = (dialect: Dialect) => `
    INSERT INTO sessions (id, workspace_id, last_seq, created_at, updated_at)
    SELECT $1 || '-' || i, $1, 1, ${dialect.at}, ${dialect.at} FROM ${dialect.numbers("$3", "$4")}`;
  const runParams = (from: number, to: number) => [
    ws,
    at,
    f,
    c,
    from,
    q,
    quarantineMetadata(at),
    JSON.stringify(counts.input ?? { steps: [] }),
    to,
  ];

  if ("dataDir" in target) {
    const sqlite: Dialect = {
      at: "CAST($2 AS INTEGER)",
      numbers: (first, last) =>
        `(WITH RECURSIVE n(i) AS (SELECT CAST(${first} AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i < ${last}) SELECT i FROM n)`,
    };
    // The same parameters, named: $n becomes @pn, bound from one object.
    const named = (text: string) => text.replace(/\$(\d)/g, "@p$1");
    const bound = (params: unknown[]) => Object.fromEntries(params.map((value, i) => [`p${i + 1}`, value]));
    const db = new Database(sqliteFileFor(target.dataDir));
    try {
      db.pragma("busy_timeout = 5000");
      db.transaction(() => {
        db.prepare(named(sessions(sqlite))).run(bound([ws, at, 1, total]));
        db.prepare(
          named(
            runs({
              ...sqlite,
              input: "$8",
              id: "printf('run_%026X', CAST($2 AS INTEGER) * 1000000 + i)",
              metadata: "$7",
            }),
          ),
        ).run(bound(runParams(1, total)));
      })();
    } finally {
      db.close();
    }
    return;
  }
  const db = new pg.Client({ connectionString: target.databaseUrl });
  await db.connect();
  try {
    const postgres: Dialect = {
      at: "$2::bigint",
      numbers: (first, last) => `generate_series(${first}::int, ${last}::int) AS i`,
    };
    const insertRuns = runs({
      ...postgres,
      input: "$8::jsonb",
      id: "'run_' || upper(lpad(to_hex($2::bigint * 1000000 + i), 26, '0'))",
      metadata: "$7::jsonb",
    });
    for (let from = 1; from <= total; from += POSTGRES_SLICE) {
      const to = Math.min(total, from + POSTGRES_SLICE - 1);
      await db.query(sessions(postgres), [ws, at, from, to]);
      await db.query(insertRuns, runParams(from, to));
    }
  } finally {
    await db.end();
  }
}
