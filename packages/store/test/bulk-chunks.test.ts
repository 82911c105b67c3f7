// @module-tag system

import { join } from "node:path";
import type { BulkAction } from "@oah/core";
import { createStoreEnv, loadRuns, MIGRATIONS_DIR, STORE_KINDS, type StoreEnv } from "@oah/testing";
import { SQL, StringChunk, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRunStore, sqliteFileFor } from "../src/open-store";
import { MATCH_PAGE } from "../src/ops/bulk-jobs";
import { type RunStore, runStoreOver } from "../src/roles";
import type { SqlClient } from "../src/sql/client";
import { openPostgres } from "../src/sql/postgres-client";
import { openSqlite } from "../src/sql/sqlite-client";

/** Runs of each kind in the store, and so items of each job: big enough that a scan would show. */
const RUNS = 100_000;
const CHUNK = 100;
/** The runs of the job whose starter dies: two pages of items and a half. */
const DIED = 2 * MATCH_PAGE + 500;

/**
 * A client that hands every statement to `seen` before running it (those of its transactions
 * too), and may refuse one: `refuse` throws instead of running the statements it picks.
 */
function watched(db: SqlClient, seen: (query: SQL) => void, refuse: (query: SQL) => boolean): SqlClient {
  const watch = (client: SqlClient): SqlClient =>
    new Proxy(client, {
      get(target, property, receiver) {
        if (property === "all" || property === "run") {
          return (query: SQL, name?: string) => {
            seen(query);
            if (refuse(query)) return Promise.reject(new Error("refused by the test"));
            return property === "all" ? target.all(query, name) : target.run(query, name);
          };
        }
        if (property === "transaction")
          return <T>(fn: (tx: SqlClient) => Promise<T>) => target.transaction((tx) => fn(watch(tx)));
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return watch(db);
}

/** A statement's text, its parameters left out. */
function textOf(query: SQL): string {
  return query.queryChunks
    .map((c) => (c instanceof SQL ? textOf(c) : c instanceof StringChunk ? c.value.join("") : "?"))
    .join("");
}

/** The tables a chunk's cost could grow with, and the key each access must be bounded by. */
const KEYS: Record<string, RegExp> = {
  runs: /\bid\b/,
  sessions: /\bid\b/,
  bulk_job_items: /\bposition\b/,
};

/** What is wrong with a statement's plan: an access to a big table not by its key (SQLite). */
function sqliteProblems(plan: string[]): string[] {
  return plan.flatMap((line) => {
    const access = /^(SCAN|SEARCH) (\w+)(?:.*?\((.*)\))?/.exec(line);
    const key = access && KEYS[access[2]!];
    if (!access || !key) return [];
    if (access[1] === "SCAN" || !key.test(access[3] ?? "")) return [line];
    return [];
  });
}

interface PgNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PgNode[];
}

/** The same for PostgreSQL's plan tree: a scan of a big table, or an index range not on its key. */
function postgresProblems(node: PgNode): string[] {
  const key = node["Node Type"].endsWith("Scan") && node["Relation Name"] && KEYS[node["Relation Name"]];
  const bounded =
    !key ||
    (/Index|Bitmap Heap/.test(node["Node Type"]) &&
      key.test(node["Index Cond"] ?? node["Recheck Cond"] ?? ""));
  const mine = bounded
    ? []
    : [`${node["Node Type"]} on ${node["Relation Name"]} (${node["Index Cond"] ?? "no index condition"})`];
  return [...mine, ...(node.Plans ?? []).flatMap(postgresProblems)];
}

describe.each(STORE_KINDS)("a bulk job's chunks on %s", (kind) => {
  let place: StoreEnv;
  let raw: SqlClient;
  let store: RunStore;
  /** The statements seen since the last look, and which ones the client refuses. */
  let seen: SQL[] = [];
  let refuse: (query: SQL) => boolean = () => false;

  beforeAll(async () => {
    place = await createStoreEnv(kind);
    const location = {
      databaseUrl: place.databaseUrl,
      dataDir: place.dataDir,
      migrationsDir: MIGRATIONS_DIR,
    };
    await (await openRunStore(location)).close();
    const target = kind === "sqlite" ? { dataDir: place.dataDir } : { databaseUrl: place.databaseUrl! };
    await loadRuns(target, "big", { quarantined: RUNS, queued: RUNS });
    await loadRuns(target, "died", { quarantined: DIED });
    raw =
      kind === "sqlite"
        ? openSqlite(sqliteFileFor(place.dataDir), join(MIGRATIONS_DIR, "sqlite"))
        : await openPostgres(place.databaseUrl!, join(MIGRATIONS_DIR, "pg"));
    store = runStoreOver(
      watched(
        raw,
        (query) => seen.push(query),
        (query) => refuse(query),
      ),
    );
  }, 120_000);
  afterAll(async () => {
    await raw?.close();
    await place?.dispose();
  });

  /** The problems of the plans of the statements of one chunk of the job. */
  async function chunkPlanProblems(jobId: string): Promise<string[]> {
    seen = [];
    const chunk = await store.runBulkChunk(jobId, "runner", CHUNK, 60_000, 3);
    expect(chunk?.job.done).toBeGreaterThan(0);
    const statements = seen;
    expect(statements.length).toBeGreaterThan(3);
    const problems: string[] = [];
    for (const statement of statements) {
      if (kind === "sqlite") {
        const plan = await raw.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${statement}`);
        problems.push(...sqliteProblems(plan.map((p) => p.detail)));
      } else {
        const [row] = await raw.all<{ "QUERY PLAN": { Plan: PgNode }[] }>(
          sql`EXPLAIN (FORMAT JSON) ${statement}`,
        );
        problems.push(...postgresProblems(row!["QUERY PLAN"][0]!.Plan));
      }
    }
    return problems;
  }

  async function started(action: BulkAction, status: "failed" | "queued") {
    const job = await store.createBulkJob({
      id: `bulk_${action.toUpperCase()}${kind.toUpperCase()}`.padEnd(31, "0"),
      action,
      filter: { workspaceId: "big", status: [status] },
      requestedBy: "ops",
      claimedBy: null,
      includeCancelled: false,
      owner: "starter",
      leaseMs: 60_000,
    });
    expect(job).toMatchObject({ status: "running", total: RUNS, done: 0 });
    expect((await store.leaseBulkJob("runner", 60_000))?.id).toBe(job.id);
    return job;
  }

  // The cancel first: the requeue's runs would be queued ones after it.
  it.each([
    ["cancel", "queued"],
    ["requeue", "failed"],
  ] as const)(
    "%s: every statement of a chunk reads its rows by key, at 100,000 items over 200,000 runs",
    async (action, status) => {
      const job = await started(action, status);
      // Half-way through the job as well as at its start: a chunk's reads do not depend on how far it is.
      expect(await chunkPlanProblems(job.id)).toEqual([]);
      if (kind === "postgres") await raw.run(sql`ANALYZE`);
      expect(await chunkPlanProblems(job.id)).toEqual([]);
      await raw.run(sql`UPDATE bulk_jobs SET done = ${RUNS / 2} WHERE id = ${job.id}`);
      expect(await chunkPlanProblems(job.id)).toEqual([]);
      const items = await store.listBulkJobItems({ id: job.id, afterPosition: RUNS / 2, limit: CHUNK + 1 });
      expect(items.map((i) => i.outcome !== null)).toEqual([...Array(CHUNK).fill(true), false]);
      await store.abortBulkJob(job.id);
    },
  );

  it("a job whose starter died while writing its items is taken up where they stopped, by the next holder of its lease", async () => {
    const isMatchPage = (query: SQL) => textOf(query).includes("INSERT INTO bulk_job_items");
    let pages = 0;
    // The third page's transaction fails: the starter is gone with it, the job half written.
    refuse = (query) => isMatchPage(query) && ++pages === 3;
    const id = `bulk_DIED${kind.toUpperCase()}`.padEnd(31, "0");
    const filter = { workspaceId: "died" };
    const start = {
      id,
      action: "requeue" as const,
      filter,
      requestedBy: "ops",
      claimedBy: null,
      includeCancelled: false,
    };
    await expect(store.createBulkJob({ ...start, owner: "starter", leaseMs: 1 })).rejects.toThrow(
      /refused by the test/,
    );
    refuse = () => false;
    expect(await store.getBulkJob(id)).toMatchObject({ status: "running", total: 2 * MATCH_PAGE, done: 0 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Its lease lapsed (1 ms): a runner takes it and writes the rest of its items first, then acts.
    expect((await store.leaseBulkJob("runner", 60_000))?.id).toBe(id);
    let chunk = await store.runBulkChunk(id, "runner", CHUNK, 60_000, 3);
    while (chunk && chunk.job.done === 0) chunk = await store.runBulkChunk(id, "runner", CHUNK, 60_000, 3);
    expect(chunk?.job).toMatchObject({ status: "running", total: DIED, done: CHUNK });
    const items = await store.listBulkJobItems({ id, afterPosition: 2 * MATCH_PAGE - 1, limit: 2 });
    expect(items.map((i) => i.position)).toEqual([2 * MATCH_PAGE, 2 * MATCH_PAGE + 1]);
    expect(new Set(items.map((i) => i.runId)).size).toBe(2);
    await store.abortBulkJob(id);
  });
});
