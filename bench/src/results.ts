// The results file of a run: what the run says of itself (when, where, on what, how), the
// sections its workloads write, in the order they ran, and the report (the two tables) it
// prints, which bench/README.md shows for the committed run.
import { cpus, totalmem } from "node:os";
import { PEER_LABELS } from "./peers";
import type { BenchPlan } from "./plan";
import type { Services } from "./services";
import { type AbsoluteRow, absoluteTable, type ComparedRow, comparedTable } from "./table";
import type { Sections, WorkloadReport } from "./workload";

/** The keys of the run's own, beside its workloads' sections. */
export const RUN_KEYS = [
  "at",
  "quick",
  "machine",
  "services",
  "repetitions",
  "systems",
  "method",
  "durationSeconds",
  "report",
] as const;

const METHOD = {
  order: "systems alternate within each repetition (A B C … A B C …); figures are medians with min and max",
  oahRedisPg:
    "oah-api with OAH_REDIS_URL, PostgreSQL, OAH_WORKERS_MIN = MAX = slots; bulk runs submitted through an oah-api --api-only before it starts",
  oahSplit:
    "oah-api --api-only + oah-sandbox processes of at most 16 slots each, started after the bulk submission",
  oahEmbedded:
    "oah-api on SQLite, in-process queue; bulk runs submitted to an oah-api whose pool cannot start a worker, which is stopped; then oah-api with slots workers re-enqueues them at start-up",
  oahBulk:
    "each bulk submission is made once over HTTP and copied for every drain (CREATE DATABASE … TEMPLATE + Redis COPY, or the SQLite file)",
  bullmq:
    "Queue.addBulk, one Worker with concurrency = slots in the bench process; job.timestamp/processedOn/finishedOn",
  graphileNamedQueues:
    "addJobs with queueName = session id, run() with concurrency = slots in the bench process; the task records start and end",
  pgBossStrictFifo:
    "pg-boss 12, a key_strict_fifo queue with notify, singletonKey = session id; insert() in chunks of 1,000; work() with localConcurrency = slots, batches of 10, burstWhenBatchFull, in the bench process",
  bullmqFsync: "as bullmq, on a private redis-server with appendonly yes and appendfsync always",
};

/** What the run says of itself before it measures anything. */
export function runHeader(plan: BenchPlan, services: Services["origin"], at: Date) {
  return {
    at: at.toISOString(),
    quick: plan.quick,
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGb: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform} ${process.arch}`,
    },
    services,
    repetitions: plan.reps,
    systems: Object.fromEntries(plan.peers.map((id) => [id, PEER_LABELS[id]])),
    method: METHOD,
  };
}

export type RunHeader = ReturnType<typeof runHeader>;

/** What the workloads have reported so far: the sections and the rows of both tables. */
export class Measured {
  readonly sections: Sections = {};
  readonly compared: ComparedRow[] = [];
  readonly absolute: AbsoluteRow[] = [];

  /** A section already written (parts beside throughput's figures) gets the new fields added. */
  add(report: WorkloadReport): void {
    for (const [key, fields] of Object.entries(report.sections))
      this.sections[key] = { ...this.sections[key], ...fields };
    this.compared.push(...(report.compared ?? []));
    this.absolute.push(...(report.absolute ?? []));
  }
}

/** The results file's content, and its report as lines of markdown. */
export function runResults(header: RunHeader, measured: Measured, durationSeconds: number) {
  const { quick, repetitions } = header;
  const report = [
    `#### oah beside its peers (${quick ? "quick" : "full"} run, ${repetitions} ${repetitions === 1 ? "repetition" : "repetitions"}, ` +
      `${header.at.slice(0, 10)}, ${durationSeconds} s)`,
    "",
    "Cells: median (min–max) over the repetitions. oah/peer above 1 is better for throughput, below 1 for",
    "times and sizes; ⚠ marks a figure where oah is behind.",
    "",
    ...comparedTable(measured.compared),
    ...(measured.absolute.length > 0 ? ["", ...absoluteTable(measured.absolute)] : []),
  ];
  return { results: { ...header, ...measured.sections, durationSeconds, report }, report };
}
