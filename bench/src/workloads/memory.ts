// (e) Memory: RSS (VmRSS of /proc/<pid>/status) of idle hosts, and what 1,000
// queued runs cost: in the `oah-api --api-only` process and in Redis
// (used_memory), beside BullMQ's 1,000 waiting jobs in Redis; and in the embedded
// default's process (its queue is in process). Nothing executes while the runs are
// queued (the sandbox is measured idle and stopped first; the embedded pool
// cannot start a worker).
import { readFileSync } from "node:fs";
import { createTempDir, type OahProcess, startOah } from "@oah/testing";
import { log, sleep } from "../log";
import { BullmqPeer } from "../peers/bullmq";
import { inParallel, SUBMIT_CONCURRENCY, submitJob } from "../peers/oah-client";
import { NO_WORKER_POOL } from "../peers/oah-snapshots";
import type { Services } from "../services";
import { round, type Summary, summarize } from "../stats";
import type { Workload } from "../workload";
import { bulkJobs } from "./throughput";

const SETTLE_MS = 2_000;
/**
 * Before the measured `queued` runs, as many are submitted and not counted: a
 * burst of 64 concurrent requests grows the V8 heap and the allocator's arenas,
 * which RSS keeps; after a burst of the same size the growth left is what the
 * queued runs hold.
 */

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? Number.NaN);
  return round(kb / 1024, 1);
}

async function redisUsedBytes(services: Services): Promise<number> {
  const info = await services.redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

async function submitNoops(api: OahProcess, count: number): Promise<void> {
  const jobs = bulkJobs(100, Math.ceil(count / 100), "mem").slice(0, count);
  await inParallel(jobs.length, SUBMIT_CONCURRENCY, async (i) => {
    await submitJob(api.url, jobs[i]!);
  });
}

export interface MemoryRound {
  idleApiEmbeddedRssMb: number;
  idleApiOnlyRssMb: number;
  idleSandboxRssMb: number;
  apiOnlyRssMbPer1000Queued: number;
  redisMbPer1000QueuedOah: number;
  redisMbPer1000QueuedBullmq: number;
  embeddedRssMbPer1000Queued: number;
}

/** A round's figures, in the order the results file keeps them. */
const MEMORY_FIGURES = [
  "idleApiEmbeddedRssMb",
  "idleApiOnlyRssMb",
  "idleSandboxRssMb",
  "apiOnlyRssMbPer1000Queued",
  "redisMbPer1000QueuedOah",
  "redisMbPer1000QueuedBullmq",
  "embeddedRssMbPer1000Queued",
] as const satisfies readonly (keyof MemoryRound)[];

/** One round of every memory figure; `queued` runs (and BullMQ jobs) for the per-1,000 figures. */
export async function memoryOnce(services: Services, queued: number): Promise<MemoryRound> {
  const per1000 = (delta: number) => round((delta * 1000) / queued, 3);
  const processes: OahProcess[] = [];
  const dirs = [createTempDir("oah-bench-mem-"), createTempDir("oah-bench-mem-")];
  const db = await services.createDatabase("memory");
  const prefix = await services.createRedisPrefix("memory");
  try {
    // Embedded default (SQLite, default pool 2..16): idle; then the same store
    // with a pool that cannot start, for the in-process queue's cost.
    const embedded = await startOah("oah-api", {
      env: { OAH_DATA_DIR: dirs[0]!.path, OAH_LOG_LEVEL: "error" },
    });
    processes.push(embedded);
    await sleep(SETTLE_MS);
    const idleApiEmbeddedRssMb = rssMb(embedded.child.pid!);
    await embedded.stop("SIGTERM");

    const holding = await startOah("oah-api", {
      env: { OAH_DATA_DIR: dirs[0]!.path, OAH_LOG_LEVEL: "error", ...NO_WORKER_POOL },
    });
    processes.push(holding);
    await submitNoops(holding, queued);
    await sleep(SETTLE_MS);
    const embeddedBefore = rssMb(holding.child.pid!);
    await submitNoops(holding, queued);
    await sleep(SETTLE_MS);
    const embeddedRssMbPer1000Queued = per1000(rssMb(holding.child.pid!) - embeddedBefore);
    await holding.stop("SIGKILL");

    // Redis + PostgreSQL: --api-only and a sandbox, idle; then --api-only holding queued runs.
    const env = {
      OAH_DATABASE_URL: db.url,
      OAH_REDIS_URL: services.redisUrl,
      OAH_REDIS_PREFIX: prefix.prefix,
      OAH_DATA_DIR: dirs[1]!.path,
      OAH_LOG_LEVEL: "error",
    };
    const apiOnly = await startOah("oah-api", { env, args: ["--api-only"] });
    processes.push(apiOnly);
    const sandbox = await startOah("oah-sandbox", {
      env: { ...env, OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "16" },
    });
    processes.push(sandbox);
    await sleep(SETTLE_MS);
    const idleApiOnlyRssMb = rssMb(apiOnly.child.pid!);
    const idleSandboxRssMb = rssMb(sandbox.child.pid!);
    await sandbox.stop("SIGTERM");
    await submitNoops(apiOnly, queued);
    await sleep(SETTLE_MS);
    const apiBefore = rssMb(apiOnly.child.pid!);
    const redisBefore = await redisUsedBytes(services);
    await submitNoops(apiOnly, queued);
    await sleep(SETTLE_MS);
    const apiOnlyRssMbPer1000Queued = per1000(rssMb(apiOnly.child.pid!) - apiBefore);
    const redisMbPer1000QueuedOah = per1000(((await redisUsedBytes(services)) - redisBefore) / 1_048_576);

    // BullMQ: the same number of waiting jobs.
    const bull = new BullmqPeer(services);
    await bull.setup();
    let redisMbPer1000QueuedBullmq: number;
    try {
      await bull.submitBulk(bulkJobs(100, 1, "warm"));
      await sleep(500);
      const before = await redisUsedBytes(services);
      await bull.submitBulk(bulkJobs(100, Math.ceil(queued / 100), "mem").slice(0, queued));
      await sleep(500);
      redisMbPer1000QueuedBullmq = per1000(((await redisUsedBytes(services)) - before) / 1_048_576);
    } finally {
      await bull.teardown();
    }

    const result = {
      idleApiEmbeddedRssMb,
      idleApiOnlyRssMb,
      idleSandboxRssMb,
      apiOnlyRssMbPer1000Queued,
      redisMbPer1000QueuedOah,
      redisMbPer1000QueuedBullmq,
      embeddedRssMbPer1000Queued,
    };
    log(`  memory: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await prefix.clear();
    await db.drop();
    for (const d of dirs) d.remove();
  }
}

export const memory: Workload<MemoryRound[]> = {
  name: "memory",
  alias: "e",
  measures:
    "RSS of idle hosts and per 1,000 queued runs; Redis memory per 1,000 queued runs, beside BullMQ's",
  systems: { own: "oah-api embedded and --api-only, oah-sandbox; BullMQ's jobs in Redis" },
  writes: {
    memory: ["unit", "note", "idleRssMb", "idleRssMbOf", "queuedRuns", ...MEMORY_FIGURES],
  },
  async run({ plan, services }) {
    const rounds: MemoryRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(`(e) memory, repetition ${rep}/${plan.reps}`);
      rounds.push(await memoryOnce(services, plan.memory.queued));
    }
    return rounds;
  },
  report(rounds, plan) {
    const m = Object.fromEntries(
      MEMORY_FIGURES.map((k) => [k, summarize(rounds.map((r) => r[k]))]),
    ) as Record<keyof MemoryRound, Summary>;
    const memory = {
      unit: "MB (VmRSS; Redis used_memory); per 1,000 queued runs after a warm-up burst of as many",
      note: "RSS holds garbage V8 has not collected yet, so the RSS growth per 1,000 queued runs is an upper bound",
      idleRssMb: m.idleApiEmbeddedRssMb.median,
      idleRssMbOf: "oah-api, embedded default (SQLite, default pool), idle",
      queuedRuns: plan.memory.queued,
      ...m,
    };
    return {
      sections: { memory },
      compared: [
        {
          figure: "Redis memory per 1,000 queued runs (MB): oah vs BullMQ",
          oah: m.redisMbPer1000QueuedOah,
          peer: m.redisMbPer1000QueuedBullmq,
          better: "lower",
        },
      ],
      absolute: [
        { figure: "RSS, idle oah-api embedded default (MB)", value: m.idleApiEmbeddedRssMb },
        { figure: "RSS, idle oah-api --api-only (MB)", value: m.idleApiOnlyRssMb },
        { figure: "RSS, idle oah-sandbox (MB)", value: m.idleSandboxRssMb },
        {
          figure: "RSS growth of oah-api --api-only per 1,000 queued runs (MB)",
          value: m.apiOnlyRssMbPer1000Queued,
        },
        {
          figure: "RSS growth of oah-api embedded per 1,000 queued runs, in-process queue (MB)",
          value: m.embeddedRssMbPer1000Queued,
        },
      ],
    };
  },
};
