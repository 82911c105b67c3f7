// (d) Storage admin on a store holding 1,000,000 runs, PostgreSQL and SQLite.
//
// The schema is made by oah itself (an `oah-api` started once on the store
// migrates it, then stops); the rows are bulk-loaded straight into `runs` (and
// `sessions`) by SQL: PostgreSQL `INSERT … SELECT … FROM generate_series` then
// VACUUM (ANALYZE) (what autovacuum would have done on a store that grew to this
// size: statistics, and the visibility map that index-only scans need);
// SQLite one `INSERT … SELECT` over a recursive CTE per chunk, in one transaction,
// and no ANALYZE (oah does not run one, so neither does the bench: this is what a
// user's file looks like). Distributions: 10,000 sessions of 100 runs, created
// evenly over 30 days; 88% completed, 2% completed after an automatic requeue
// (recovery state `requeued`), 5% failed with tool/executor/model codes, 2%
// cancelled, 1.5% timed out, 1% failed by recovery (`worker_recovery_failed`,
// state `failed`), 0.5% quarantined (`max_attempts_exhausted`, a few
// `waiting_tool_manual_resume_required`); 2% subagent priority. No run is left
// active or queued, so the `oah-api` that serves the queries has nothing to
// recover or execute.
//
// Then each query goes through the real HTTP API, sequentially, after a warm-up;
// latency is the client's (request sent → JSON parsed). PostgreSQL and SQLite
// alternate request by request.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ApiClient, createTempDir, type OahProcess, startOah } from "@oah/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { log } from "../log";
import { NO_WORKER_POOL } from "../peers/oah-snapshots";
import type { Services } from "../services";
import { percentile, round, type Summary, summarize } from "../stats";
import type { AbsoluteRow } from "../table";
import type { Workload } from "../workload";

export const ADMIN_SESSIONS = 10_000;
const DAY_MS = 86_400_000;
const SPAN_MS = 30 * DAY_MS;

type Dialect = "postgres" | "sqlite";

/** The few expressions PostgreSQL and SQLite spell differently. */
const dialects = {
  postgres: {
    pad: (e: string, n: number) => `right(repeat('0', ${n}) || (${e})::text, ${n})`,
    iso: (e: string) =>
      `to_char(to_timestamp((${e}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    json: (e: string) => `(${e})::jsonb`,
    series: (from: number, to: number) =>
      `SELECT i FROM generate_series(${from}::bigint, ${to}::bigint) AS i`,
  },
  sqlite: {
    pad: (e: string, n: number) => `substr('${"0".repeat(n)}' || (${e}), -${n}, ${n})`,
    iso: (e: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', (${e}) / 1000.0, 'unixepoch')`,
    json: (e: string) => `(${e})`,
    series: (from: number, to: number) =>
      `SELECT i FROM (WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to}) SELECT i FROM s)`,
  },
};

/**
 * The row's dice, 0–999: a multiplicative generator modulo a prime, the same on
 * both stores and stable when evaluated twice (SQLite may flatten the subquery and
 * evaluate `r` once per use, so random() would not do).
 */
const R = "((i * 2654435761) % 4294967291) % 1000";

/** One INSERT … SELECT of rows i ∈ [from, to] of a store of `total` runs created from t0 over 30 days. */
export function runsInsert(d: Dialect, from: number, to: number, total: number, t0: number): string {
  const x = dialects[d];
  const recovered = "(r BETWEEN 880 AND 899 OR r >= 985)";
  const state = `CASE WHEN r BETWEEN 880 AND 899 THEN 'requeued' WHEN r BETWEEN 985 AND 994 THEN 'failed'
    WHEN r >= 995 THEN 'quarantined' END`;
  const reason = `CASE WHEN r BETWEEN 880 AND 899 THEN 'automatic_requeue' WHEN r BETWEEN 985 AND 994 THEN 'fail_closed'
    WHEN r = 999 THEN 'waiting_tool_manual_resume_required' WHEN r >= 995 THEN 'max_attempts_exhausted' END`;
  const at = x.iso("c + 2");
  const metadata = `CASE WHEN ${recovered} THEN
    '{"recoveryAttempts":' || (CASE WHEN r >= 995 THEN 3 ELSE 1 END) || ',"recovery":{"state":"' || ${state} ||
    '","strategy":"requeue_running","attempts":' || (CASE WHEN r >= 995 THEN 3 ELSE 1 END) ||
    ',"maxAttempts":3,"lastOutcome":{"from":"running","to":"' || (CASE WHEN r BETWEEN 880 AND 899 THEN 'queued' ELSE 'failed' END) ||
    '"},"lastRecoveredBy":"bench-host","lastRecoveredAt":"' || ${at} || '","reason":"' || ${reason} ||
    '","manualRequeueCount":0,"lastManualRequeueAt":null,"lastManualRequeueBy":null' ||
    (CASE WHEN r >= 995 THEN ',"deadLetter":{"status":"quarantined","reason":"' || ${reason} || '","at":"' || ${at} || '"}' ELSE '' END) ||
    '}}' ELSE '{}' END`;
  const errorCode = `CASE WHEN r BETWEEN 900 AND 949 THEN (CASE i % 4 WHEN 0 THEN 'tool_failed' WHEN 1 THEN 'executor_failed'
      WHEN 2 THEN 'model_failed' ELSE 'tool_timed_out' END)
    WHEN r BETWEEN 970 AND 984 THEN 'run_timed_out' WHEN r >= 985 THEN 'worker_recovery_failed' END`;
  return `INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, parent_run_id, priority, executor, input,
    output, status, error_code, error_message, created_at, enqueued_at, started_at, heartbeat_at, ended_at,
    cancel_requested_at, timeout_ms, worker_id, claim_token, attempt, recovery_state, recovery_reason, recovered_at,
    waiting_tool, metadata, idempotency_key, updated_at)
  SELECT 'run_' || ${x.pad("c", 14)} || ${x.pad("i", 12)},
    'adm-' || ${x.pad(`i % ${ADMIN_SESSIONS}`, 5)},
    i / ${ADMIN_SESSIONS} + 1, i / ${ADMIN_SESSIONS} + 1, 'default', NULL,
    CASE WHEN i % 50 = 0 THEN 'subagent' ELSE 'normal' END, 'script', ${x.json(`'{"steps":[]}'`)}, NULL,
    CASE WHEN r < 900 THEN 'completed' WHEN r < 950 THEN 'failed' WHEN r < 970 THEN 'cancelled'
      WHEN r < 985 THEN 'timed_out' ELSE 'failed' END,
    ${errorCode},
    CASE WHEN r >= 900 AND NOT (r BETWEEN 950 AND 969) THEN 'bench: simulated failure' END,
    c, c, c + 3, c + 3, c + 3 + r % 40,
    CASE WHEN r BETWEEN 950 AND 969 THEN c + 5 END,
    1800000, 'bench-host:w' || (i % 8), NULL,
    CASE WHEN ${recovered} THEN 2 ELSE 1 END,
    ${state}, ${reason},
    CASE WHEN ${recovered} THEN c + 2 END,
    NULL, ${x.json(metadata)}, NULL, c + 3 + r % 40
  FROM (SELECT i, ${t0} + (i * ${SPAN_MS}) / ${total} AS c, ${R} AS r FROM (${x.series(from, to)}) AS q) AS g`;
}

export function sessionsInsert(d: Dialect, total: number, t0: number): string {
  const x = dialects[d];
  const perSession = Math.ceil(total / ADMIN_SESSIONS);
  return `INSERT INTO sessions (id, workspace_id, last_seq, created_at, updated_at)
    SELECT 'adm-' || ${x.pad("i", 5)}, 'default', ${perSession}, ${t0}, ${t0 + SPAN_MS}
    FROM (${x.series(0, ADMIN_SESSIONS - 1)}) AS q`;
}

const CHUNK = 250_000;

interface AdminStore {
  kind: Dialect;
  env: Record<string, string>;
  loadSeconds: number;
  dispose(): Promise<void>;
}

/** Starts and stops an oah-api on the store: its migrations make the schema. */
async function migrate(env: Record<string, string>): Promise<void> {
  const api = await startOah("oah-api", { env: { ...env, ...NO_WORKER_POOL, OAH_LOG_LEVEL: "error" } });
  const code = await api.stop("SIGTERM");
  if (code !== 0) throw new Error(`oah-api exited ${code} after migrating:\n${api.output()}`);
}

async function preparePostgres(services: Services, total: number, t0: number): Promise<AdminStore> {
  const db = await services.createDatabase("admin");
  const dir = createTempDir("oah-bench-admin-");
  const env = { OAH_DATABASE_URL: db.url, OAH_DATA_DIR: dir.path };
  const dispose = async () => {
    await db.drop();
    dir.remove();
  };
  try {
    await migrate(env);
    const started = Date.now();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("SET synchronous_commit = off");
      await client.query(sessionsInsert("postgres", total, t0));
      for (let from = 0; from < total; from += CHUNK) {
        await client.query(runsInsert("postgres", from, Math.min(total, from + CHUNK) - 1, total, t0));
        log(`  admin: PostgreSQL ${Math.min(total, from + CHUNK).toLocaleString("en")} runs loaded`);
      }
      await client.query("VACUUM (ANALYZE) runs");
      await client.query("VACUUM (ANALYZE) sessions");
    } finally {
      await client.end();
    }
    return { kind: "postgres", env, loadSeconds: round((Date.now() - started) / 1000), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

async function prepareSqlite(total: number, t0: number): Promise<AdminStore> {
  const dir = createTempDir("oah-bench-admin-");
  const env = { OAH_DATA_DIR: dir.path };
  const dispose = async () => dir.remove();
  try {
    await migrate(env);
    const started = Date.now();
    const db = new Database(join(dir.path, ".openharness", "data", "history.db"));
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = OFF");
      db.pragma("cache_size = -262144");
      db.exec("BEGIN");
      db.exec(sessionsInsert("sqlite", total, t0));
      for (let from = 0; from < total; from += CHUNK) {
        db.exec(runsInsert("sqlite", from, Math.min(total, from + CHUNK) - 1, total, t0));
        log(`  admin: SQLite ${Math.min(total, from + CHUNK).toLocaleString("en")} runs loaded`);
      }
      db.exec("COMMIT");
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
    return { kind: "sqlite", env, loadSeconds: round((Date.now() - started) / 1000), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

export interface QueryFigures {
  path: string;
  p50: Summary;
  p95: Summary;
  /** Rows on the page (the last answer), as a sanity check. */
  items: number;
}

export interface AdminStoreResult {
  runs: number;
  loadSeconds: number;
  queries: Record<string, QueryFigures>;
  /** The worst list query's p95 (the slowest filter), median over rounds. */
  listP95Ms: number;
  overviewP95Ms: number;
}

export interface AdminResult {
  runs: number;
  rounds: number;
  requestsPerRound: number;
  postgres?: AdminStoreResult;
  sqlite?: AdminStoreResult;
}

interface Query {
  name: string;
  path: () => string;
}

async function timedGet(client: ApiClient, path: string): Promise<{ ms: number; body: unknown }> {
  const t = performance.now();
  const res = await client.get<unknown>(path);
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return { ms, body: res.body };
}

/** The queries: every filter of the storage list, a second page by cursor, and the overview. */
async function queriesFor(client: ApiClient, total: number, t0: number): Promise<Query[]> {
  const first = (await timedGet(client, "/api/v1/storage/runs?limit=50")).body as {
    items: { id: string }[];
    nextCursor: string | null;
  };
  if (!first.nextCursor || first.items.length === 0) throw new Error("the loaded store lists no runs");
  const cursor = encodeURIComponent(first.nextCursor);
  const runId = first.items[7]!.id;
  const dayFrom = new Date(t0 + 15 * DAY_MS).toISOString();
  const dayTo = new Date(t0 + 16 * DAY_MS).toISOString();
  let n = 0;
  const session = () => `adm-${String((n++ * 7_919) % Math.min(ADMIN_SESSIONS, total)).padStart(5, "0")}`;
  const list = "/api/v1/storage/runs?limit=50";
  return [
    { name: "list, no filter (first page)", path: () => list },
    { name: "list, second page (cursor)", path: () => `${list}&cursor=${cursor}` },
    { name: "list, status=failed", path: () => `${list}&status=failed` },
    { name: "list, status=failed,timed_out", path: () => `${list}&status=failed,timed_out` },
    {
      name: "list, errorCode=worker_recovery_failed",
      path: () => `${list}&errorCode=worker_recovery_failed`,
    },
    { name: "list, recoveryState=quarantined", path: () => `${list}&recoveryState=quarantined` },
    { name: "list, sessionId", path: () => `${list}&sessionId=${session()}` },
    { name: "list, workspaceId=default", path: () => `${list}&workspaceId=default` },
    { name: "list, runId", path: () => `${list}&runId=${runId}` },
    {
      name: "list, created range (one day)",
      path: () => `${list}&createdFrom=${encodeURIComponent(dayFrom)}&createdTo=${encodeURIComponent(dayTo)}`,
    },
    { name: "overview", path: () => "/api/v1/storage/overview" },
  ];
}

export const OVERVIEW = "overview";

export async function adminBench(
  services: Services,
  options: { runs: number; rounds: number; requestsPerRound: number; warmUp: number; sqlite: boolean },
): Promise<AdminResult> {
  const t0 = Date.now() - SPAN_MS - 60_000;
  const stores: AdminStore[] = [];
  const apis: OahProcess[] = [];
  try {
    log(`admin: loading ${options.runs.toLocaleString("en")} runs into PostgreSQL`);
    stores.push(await preparePostgres(services, options.runs, t0));
    log(`admin: PostgreSQL loaded in ${stores[0]!.loadSeconds} s`);
    if (options.sqlite) {
      log(`admin: loading ${options.runs.toLocaleString("en")} runs into SQLite`);
      stores.push(await prepareSqlite(options.runs, t0));
      log(`admin: SQLite loaded in ${stores[1]!.loadSeconds} s`);
    }
    const targets: { store: AdminStore; client: ApiClient; queries: Query[] }[] = [];
    for (const store of stores) {
      const api = await startOah("oah-api", {
        env: { ...store.env, ...NO_WORKER_POOL, OAH_LOG_LEVEL: "error" },
      });
      apis.push(api);
      const client = new ApiClient(api.url);
      targets.push({ store, client, queries: await queriesFor(client, options.runs, t0) });
    }
    const names = targets[0]!.queries.map((q) => q.name);
    // [target][query][round] → latencies
    const samples = targets.map(() => names.map(() => [] as number[][]));
    const items = targets.map(() => names.map(() => 0));
    for (let q = 0; q < names.length; q++) {
      for (let w = 0; w < options.warmUp; w++)
        for (const t of targets) await timedGet(t.client, t.queries[q]!.path());
      for (let round_ = 0; round_ < options.rounds; round_++) {
        for (let k = 0; k < targets.length; k++) samples[k]![q]!.push([]);
        for (let i = 0; i < options.requestsPerRound; i++) {
          for (let k = 0; k < targets.length; k++) {
            const { ms, body } = await timedGet(targets[k]!.client, targets[k]!.queries[q]!.path());
            samples[k]![q]![round_]!.push(ms);
            const page = body as { items?: unknown[] };
            items[k]![q] = page.items?.length ?? 1;
          }
        }
      }
      const line = targets
        .map((t, k) => {
          const all = samples[k]![q]!.flat();
          return `${t.store.kind} p50 ${round(percentile(all, 50))} / p95 ${round(percentile(all, 95))} ms`;
        })
        .join("; ");
      log(`  admin ${names[q]}: ${line}`);
    }
    const result: AdminResult = {
      runs: options.runs,
      rounds: options.rounds,
      requestsPerRound: options.requestsPerRound,
    };
    targets.forEach((t, k) => {
      const queries: Record<string, QueryFigures> = {};
      names.forEach((name, q) => {
        const rounds = samples[k]![q]!;
        queries[name] = {
          path: t.queries[q]!.path().replace(/cursor=[^&]+/, "cursor=…"),
          p50: summarize(rounds.map((r) => round(percentile(r, 50), 2))),
          p95: summarize(rounds.map((r) => round(percentile(r, 95), 2))),
          items: items[k]![q]!,
        };
      });
      const lists = Object.entries(queries).filter(([name]) => name !== "overview");
      result[t.store.kind] = {
        runs: options.runs,
        loadSeconds: t.store.loadSeconds,
        queries,
        listP95Ms: Math.max(...lists.map(([, f]) => f.p95.median)),
        overviewP95Ms: queries.overview!.p95.median,
      };
    });
    return result;
  } finally {
    await Promise.all(apis.map((a) => a.stop("SIGKILL")));
    for (const s of stores) await s.dispose().catch(() => {});
  }
}

export const admin: Workload<AdminResult> = {
  name: "admin",
  alias: "d",
  measures: "the storage list with each filter and the overview on 1,000,000 runs, over HTTP",
  systems: { own: "an oah-api on each store, PostgreSQL and SQLite" },
  writes: {
    admin: ["unit", "listP95Ms", "overviewP95Ms", "runs", "rounds", "requestsPerRound", "postgres", "sqlite"],
  },
  run({ plan, services }) {
    log(`(d) admin: storage list and overview on ${plan.admin.runs.toLocaleString("en")} runs`);
    return adminBench(services, plan.admin);
  },
  report(result) {
    const absolute: AbsoluteRow[] = [];
    for (const kind of ["postgres", "sqlite"] as const) {
      const r = result[kind];
      if (!r) continue;
      const name = kind === "postgres" ? "PostgreSQL" : "SQLite";
      absolute.push({
        figure: `admin ${name}: bulk load of ${r.runs.toLocaleString("en")} runs (s)`,
        value: String(r.loadSeconds),
      });
      for (const [query, f] of Object.entries(r.queries))
        absolute.push({
          figure: `admin ${name}, ${query}: p50 / p95 (ms)`,
          value: `${f.p50.median} / ${f.p95.median} (p95 range ${f.p95.min}–${f.p95.max})`,
        });
    }
    const admin = {
      unit: "ms, client-side, through the HTTP API; listP95Ms = the slowest list query's p95",
      listP95Ms: result.postgres?.listP95Ms,
      overviewP95Ms: result.postgres?.overviewP95Ms,
      ...result,
    };
    return { sections: { admin }, absolute };
  },
};
