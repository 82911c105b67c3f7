import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "@oah/testing";
import { round, summarize } from "./stats";
import { dispatchLatency, throughput } from "./workloads";

const { values } = parseArgs({ options: { quick: { type: "boolean", default: false } }, strict: true });
const quick = values.quick;
const repeats = quick ? 1 : 3;
const sessions = quick ? 100 : 500;
const runsPerSession = 20;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

log(`oah bench (${quick ? "quick" : "full"}): Redis + PostgreSQL, oah-api --api-only + oah-sandbox`);

const dispatch = [];
for (let i = 0; i < repeats; i++) dispatch.push(await dispatchLatency(quick ? 100 : 300));
const throughputBySlots: Record<string, ReturnType<typeof summarize>> = {};
for (const slots of [8, 32]) {
  const figures = [];
  for (let i = 0; i < repeats; i++)
    figures.push((await throughput(sessions, runsPerSession, slots)).runsPerSecond);
  throughputBySlots[slots] = summarize(figures.map((f) => round(f)));
}
const p50 = summarize(dispatch.map((d) => d.p50Ms));
const p99 = summarize(dispatch.map((d) => d.p99Ms));

log("");
log("| figure | median | min | max |");
log("|---|---|---|---|");
log(`| dispatch p50, submit → start (ms) | ${p50.median} | ${p50.min} | ${p50.max} |`);
log(`| dispatch p99, submit → start (ms) | ${p99.median} | ${p99.min} | ${p99.max} |`);
for (const [slots, s] of Object.entries(throughputBySlots)) {
  log(
    `| throughput ${sessions}×${runsPerSession} no-op runs, ${slots} slots (runs/s) | ${s.median} | ${s.min} | ${s.max} |`,
  );
}

const results = {
  at: new Date().toISOString(),
  quick,
  machine: { node: process.version, cpus: (await import("node:os")).cpus().length },
  dispatch: { p50Ms: p50.median, p99Ms: p99.median, p50: p50, p99: p99 },
  throughput: {
    workload: { sessions, runsPerSession },
    oahRedisPg: throughputBySlots["8"]!.median,
    bySlots: throughputBySlots,
  },
};
const dir = join(REPO_ROOT, "bench", "results");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
log(`\nwritten: bench/results/latest.json`);
