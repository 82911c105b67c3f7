// Bulk submissions to oah, made once and copied for each drain.
//
// The throughput workload needs 10,000 runs queued before any worker exists, for
// every repetition, slot count and oah system. Submitting them goes through the
// real API (one HTTP request and one store transaction per run), which is not
// what is measured and costs tens of seconds each time on this machine, far too
// much for the 15-minute budget. So each bulk submission is made once, for real,
// into a template: an `oah-api --api-only` on a database and Redis prefix of its
// own (Redis + PostgreSQL), or an `oah-api` whose pool cannot start a worker (the
// embedded default). Each drain then gets an exact copy: `CREATE DATABASE …
// TEMPLATE` and a COPY of every key of the prefix (values and TTLs; no oah value
// holds its own prefix), or a copy of the SQLite file. The workers see precisely
// the state the API left; both Redis+PG systems (embedded pool and split) start
// from the same submission.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { createTempDir, type OahProcess, startOah, type TempDir } from "@oah/testing";
import { log } from "../log";
import type { BenchDatabase, BenchRedisPrefix, Services } from "../services";
import {
  inParallel,
  postgresReader,
  type RunsReader,
  SUBMIT_CONCURRENCY,
  sqliteReader,
  submitJob,
} from "./oah-client";
import type { JobSpec } from "./types";

export const NO_WORKER_POOL = {
  OAH_WORKERS_MIN: "0",
  OAH_WORKERS_MAX: "1",
  OAH_POOL_SCALE_UP_SAMPLE_WINDOW: "1000",
  OAH_POOL_SCALE_INTERVAL_MS: "3600000",
};

export interface RedisPgTemplate {
  db: BenchDatabase;
  prefix: BenchRedisPrefix;
}

export interface SqliteTemplate {
  dir: TempDir;
}

/** A fingerprint of a job list: the same jobs give the same template. */
function keyOf(jobs: readonly JobSpec[]): string {
  let h = 0;
  for (const j of jobs)
    for (let i = 0; i < j.sessionId.length; i++) h = (h * 31 + j.sessionId.charCodeAt(i)) | 0;
  const waits = jobs.filter((j) => j.waitsForTool).length;
  return `${jobs.length}:${h}:${jobs.reduce((sum, j) => sum + j.sleepMs, 0)}:${waits}`;
}

async function submitAll(api: OahProcess, jobs: readonly JobSpec[]): Promise<number> {
  const t = Date.now();
  await inParallel(jobs.length, SUBMIT_CONCURRENCY, async (i) => {
    await submitJob(api.url, jobs[i]!);
  });
  return (Date.now() - t) / 1000;
}

async function checkQueued(reader: RunsReader, expected: number, what: string): Promise<void> {
  try {
    const started = await reader.startedCount();
    const total = await reader.total();
    if (started > 0 || total !== expected)
      throw new Error(
        `${what}: ${total} runs, ${started} started (expected ${expected} queued, none started)`,
      );
  } finally {
    await reader.close();
  }
}

export class OahSnapshots {
  private redisPg = new Map<string, Promise<RedisPgTemplate>>();
  private sqlite = new Map<string, Promise<SqliteTemplate>>();
  /** Seconds each real submission took (for the report). */
  readonly submitSeconds: Record<string, number> = {};

  constructor(private readonly services: Services) {}

  redisPgTemplate(jobs: readonly JobSpec[]): Promise<RedisPgTemplate> {
    const key = keyOf(jobs);
    let t = this.redisPg.get(key);
    if (!t) {
      t = this.makeRedisPg(jobs);
      this.redisPg.set(key, t);
    }
    return t;
  }

  sqliteTemplate(jobs: readonly JobSpec[]): Promise<SqliteTemplate> {
    const key = keyOf(jobs);
    let t = this.sqlite.get(key);
    if (!t) {
      t = this.makeSqlite(jobs);
      this.sqlite.set(key, t);
    }
    return t;
  }

  /** A fresh database and prefix holding a copy of the template. */
  async cloneRedisPg(template: RedisPgTemplate, tag: string): Promise<RedisPgTemplate> {
    const db = await this.services.createDatabase(tag, template.db);
    const prefix = await this.services.createRedisPrefix(tag);
    await this.services.copyOahKeys(template.prefix, prefix);
    return { db, prefix };
  }

  /** A fresh data directory holding a copy of the template's store. */
  cloneSqlite(template: SqliteTemplate): TempDir {
    const dir = createTempDir("oah-bench-");
    cpSync(join(template.dir.path, ".openharness", "data"), join(dir.path, ".openharness", "data"), {
      recursive: true,
    });
    return dir;
  }

  private async makeRedisPg(jobs: readonly JobSpec[]): Promise<RedisPgTemplate> {
    const db = await this.services.createDatabase("tmplredispg");
    const prefix = await this.services.createRedisPrefix("tmpl");
    const dir = createTempDir("oah-bench-");
    try {
      const api = await startOah("oah-api", {
        env: {
          OAH_DATABASE_URL: db.url,
          OAH_REDIS_URL: this.services.redisUrl,
          OAH_REDIS_PREFIX: prefix.prefix,
          OAH_DATA_DIR: dir.path,
          OAH_LOG_LEVEL: "error",
        },
        args: ["--api-only"],
      });
      const seconds = await submitAll(api, jobs).finally(() => api.stop("SIGTERM"));
      this.submitSeconds[`redisPg:${jobs.length}`] = seconds;
      log(
        `  submitted ${jobs.length} runs to oah-api --api-only (Redis+PG template) in ${seconds.toFixed(1)} s`,
      );
      await checkQueued(postgresReader(db.url), jobs.length, "Redis+PG template");
      return { db, prefix };
    } finally {
      dir.remove();
    }
  }

  private async makeSqlite(jobs: readonly JobSpec[]): Promise<SqliteTemplate> {
    const dir = createTempDir("oah-bench-tmpl-");
    const api = await startOah("oah-api", {
      env: { OAH_DATA_DIR: dir.path, OAH_LOG_LEVEL: "error", ...NO_WORKER_POOL },
    });
    const seconds = await submitAll(api, jobs).finally(() => api.stop("SIGTERM"));
    this.submitSeconds[`sqlite:${jobs.length}`] = seconds;
    log(
      `  submitted ${jobs.length} runs to oah-api with no worker (SQLite template) in ${seconds.toFixed(1)} s`,
    );
    await checkQueued(sqliteReader(dir.path), jobs.length, "SQLite template");
    return { dir };
  }

  async dispose(): Promise<void> {
    for (const t of this.redisPg.values()) {
      const { db, prefix } = await t.catch(() => ({ db: undefined, prefix: undefined }));
      await prefix?.clear();
      await db?.drop();
    }
    for (const t of this.sqlite.values()) (await t.catch(() => undefined))?.dir.remove();
    this.redisPg.clear();
    this.sqlite.clear();
  }
}
