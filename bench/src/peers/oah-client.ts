// How the bench talks to oah: submission over the real HTTP API, and reading the
// `runs` table (PostgreSQL or SQLite), whose timestamps are the most accurate
// record of when each run was enqueued, started and ended.
import { existsSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { JobSpec, JobTiming } from "./types";

/** How many submissions are in flight at once during a bulk submission (not measured). */
export const SUBMIT_CONCURRENCY = 64;

const TERMINAL = "('completed', 'failed', 'cancelled', 'timed_out')";
const UNFINISHED_REPORT = `SELECT id, session_id, seq, status, attempt, worker_id, enqueued_at, started_at,
  heartbeat_at, recovery_state FROM runs WHERE status NOT IN ${TERMINAL} ORDER BY enqueued_at LIMIT 10`;

interface RunRow {
  session_id?: string;
  status: string;
  enqueued_at: number | string;
  started_at: number | string | null;
  ended_at: number | string | null;
}

/** What a completed run's checkpoints hold (run_checkpoints), beside its output (an agent's conversation). */
export interface RunCheckpointBytes {
  sessionId: string;
  seq: number;
  checkpoints: number;
  /** The JSON text of every checkpoint's state and appended log, summed (what SQLite stores). */
  jsonBytes: number;
  /** PostgreSQL: what it stores of them (pg_column_size: jsonb, compressed when large); SQLite: jsonBytes. */
  storedBytes: number;
  /** The JSON text had each checkpoint held the whole log so far instead of what it adds to it. */
  rewriteJsonBytes: number;
  /** The JSON text of the run's output. */
  outputJsonBytes: number;
}

/** Read access to a store's `runs` table. */
export interface RunsReader {
  finished(): Promise<{ finished: number; notCompleted: number }>;
  startedCount(): Promise<number>;
  total(): Promise<number>;
  run(id: string): Promise<RunRow | undefined>;
  completed(): Promise<JobTiming[]>;
  /** A few runs without a terminal status, as rows, for a report of what is stuck. */
  unfinished(): Promise<Record<string, unknown>[]>;
  /** Each completed run's checkpoints, by size. */
  checkpointBytes(): Promise<RunCheckpointBytes[]>;
  close(): Promise<void>;
}

const CHECKPOINT_BYTES = (json: (column: string) => string, stored: (column: string) => string) =>
  `WITH c AS (SELECT run_id, ${json("state")} AS state, coalesce(${json("appended")}, 0) AS appended,
      ${stored("state")} + coalesce(${stored("appended")}, 0) AS stored,
      sum(coalesce(${json("appended")}, 0)) OVER (PARTITION BY run_id ORDER BY id) AS log
    FROM run_checkpoints)
  SELECT r.session_id, r.seq, count(c.run_id) AS checkpoints,
    coalesce(sum(c.state + c.appended), 0) AS json_bytes, coalesce(sum(c.stored), 0) AS stored_bytes,
    coalesce(sum(c.state + c.log), 0) AS rewrite_json_bytes, ${json("r.output")} AS output_json_bytes
  FROM runs r LEFT JOIN c ON c.run_id = r.id
  WHERE r.status = 'completed' GROUP BY r.id, r.session_id, r.seq, r.output`;

interface CheckpointBytesRow {
  session_id: string;
  seq: number | string;
  checkpoints: number | string;
  json_bytes: number | string;
  stored_bytes: number | string;
  rewrite_json_bytes: number | string;
  output_json_bytes: number | string | null;
}

const checkpointBytesOf = (r: CheckpointBytesRow): RunCheckpointBytes => ({
  sessionId: r.session_id,
  seq: Number(r.seq),
  checkpoints: Number(r.checkpoints),
  jsonBytes: Number(r.json_bytes),
  storedBytes: Number(r.stored_bytes),
  rewriteJsonBytes: Number(r.rewrite_json_bytes),
  outputJsonBytes: Number(r.output_json_bytes ?? 0),
});

/** A finished run's timestamps, as the bench compares them. */
export const timing = (r: RunRow): JobTiming => ({
  ...(r.session_id === undefined ? {} : { sessionId: r.session_id }),
  enqueuedAt: Number(r.enqueued_at),
  startedAt: Number(r.started_at),
  endedAt: Number(r.ended_at),
});

export function postgresReader(url: string): RunsReader {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {});
  return {
    async finished() {
      const { rows } = await pool.query<{ n: string; bad: string }>(
        `SELECT count(*) AS n, count(*) FILTER (WHERE status <> 'completed') AS bad FROM runs WHERE status IN ${TERMINAL}`,
      );
      return { finished: Number(rows[0]!.n), notCompleted: Number(rows[0]!.bad) };
    },
    async startedCount() {
      const { rows } = await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM runs WHERE started_at IS NOT NULL",
      );
      return Number(rows[0]!.n);
    },
    async total() {
      const { rows } = await pool.query<{ n: string }>("SELECT count(*) AS n FROM runs");
      return Number(rows[0]!.n);
    },
    async run(id) {
      const { rows } = await pool.query<RunRow>(
        "SELECT status, enqueued_at, started_at, ended_at FROM runs WHERE id = $1",
        [id],
      );
      return rows[0];
    },
    async completed() {
      const { rows } = await pool.query<RunRow>(
        "SELECT session_id, status, enqueued_at, started_at, ended_at FROM runs WHERE status = 'completed'",
      );
      return rows.map(timing);
    },
    async unfinished() {
      return (await pool.query(UNFINISHED_REPORT)).rows;
    },
    async checkpointBytes() {
      const sql = CHECKPOINT_BYTES(
        (column) => `octet_length(${column}::text)`,
        (column) => `pg_column_size(${column})`,
      );
      return (await pool.query<CheckpointBytesRow>(sql)).rows.map(checkpointBytesOf);
    },
    close: () => pool.end(),
  };
}

/** The embedded default's store: `$OAH_DATA_DIR/.openharness/data/history.db`, read-only, opened once it exists. */
export function sqliteReader(dataDir: string): RunsReader {
  const file = join(dataDir, ".openharness", "data", "history.db");
  let db: Database.Database | undefined;
  const open = () => {
    if (!db) {
      if (!existsSync(file)) throw new Error(`no SQLite store at ${file} yet`);
      db = new Database(file, { readonly: true, fileMustExist: true });
      db.pragma("busy_timeout = 5000");
    }
    return db;
  };
  return {
    async finished() {
      const row = open()
        .prepare(
          `SELECT count(*) AS n, sum(status <> 'completed') AS bad FROM runs WHERE status IN ${TERMINAL}`,
        )
        .get() as { n: number; bad: number | null };
      return { finished: row.n, notCompleted: row.bad ?? 0 };
    },
    async startedCount() {
      return (
        open().prepare("SELECT count(*) AS n FROM runs WHERE started_at IS NOT NULL").get() as { n: number }
      ).n;
    },
    async total() {
      return (open().prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n;
    },
    async run(id) {
      return open()
        .prepare("SELECT status, enqueued_at, started_at, ended_at FROM runs WHERE id = ?")
        .get(id) as RunRow | undefined;
    },
    async completed() {
      const rows = open()
        .prepare(
          "SELECT session_id, status, enqueued_at, started_at, ended_at FROM runs WHERE status = 'completed'",
        )
        .all() as RunRow[];
      return rows.map(timing);
    },
    async unfinished() {
      return open().prepare(UNFINISHED_REPORT).all() as Record<string, unknown>[];
    },
    async checkpointBytes() {
      const bytes = (column: string) => `length(CAST(${column} AS BLOB))`;
      const rows = open().prepare(CHECKPOINT_BYTES(bytes, bytes)).all() as CheckpointBytesRow[];
      return rows.map(checkpointBytesOf);
    },
    async close() {
      db?.close();
      db = undefined;
    },
  };
}

/** Runs `count` tasks with at most `concurrency` at once. */
export async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export const stepsOf = (job: JobSpec): unknown[] => [
  ...(job.sleepMs > 0 ? [{ type: "sleep", ms: job.sleepMs }] : []),
  ...(job.waitsForTool ? [{ type: "wait_tool", name: "approve" }] : []),
];

// node:http with keep-alive: about a third of fetch's CPU per request, which
// matters with the bench and the systems on the same two cores.
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** POSTs JSON; resolves with the status and the parsed answer. */
export function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Submits one run (a no-op, or one sleep step) through the HTTP API; resolves with its id. */
export async function submitJob(baseUrl: string, job: JobSpec): Promise<string> {
  const res = await postJson(baseUrl, `/api/v1/sessions/${encodeURIComponent(job.sessionId)}/runs`, {
    input: { steps: stepsOf(job) },
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { run: { id: string } }).run.id;
}
