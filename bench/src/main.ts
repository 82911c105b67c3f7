// `npm run bench`: the same workloads on oah (Redis + PostgreSQL with its embedded
// pool, and split into `--api-only` + sandboxes; the embedded default on SQLite) and
// on its peers (BullMQ, graphile-worker with a named queue per session), in one
// process tree and one sitting. The workloads (registry.ts) run one after the other;
// systems alternate within each repetition (A B C … A B C …) so that drift spreads
// over all of them; every figure is the median of the repetitions, with min and max.
// Options: see BENCH_USAGE (`-- --help`).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { readCommandLine } from "./command-line";
import { formatJson } from "./json";
import { elapsedSeconds, log, print } from "./log";
import { createPeer, OahSnapshots, type Peer, type PeerId } from "./peers";
import { BENCH_OPTIONS, BENCH_USAGE, benchPlan, LATEST_RESULTS } from "./plan";
import { BENCH_README, writeReadmeReport } from "./readme";
import { Measured, runHeader, runResults } from "./results";
import { findServices, type Services } from "./services";
import type { WorkloadContext } from "./workload";

const plan = readCommandLine(BENCH_USAGE, { options: BENCH_OPTIONS }, benchPlan);
const { quick, outFile } = plan;

// Everything started, so that an interrupt still removes databases, keys and processes.
const live = new Set<Peer>();
let services: Services | undefined;
let snapshots: OahSnapshots | undefined;
let stopping = false;
async function shutdown(signal: string, code = 130): Promise<never> {
  if (!stopping) {
    stopping = true;
    log(`${signal}: cleaning up`);
    for (const p of live) await p.teardown().catch(() => {});
    await snapshots?.dispose().catch(() => {});
    await services?.dispose().catch(() => {});
  }
  process.exit(code);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("uncaughtException", (error) => {
  log(`uncaught: ${error.stack ?? error}`);
  void shutdown("uncaught exception", 1);
});

async function withPeer<T>(id: PeerId, task: (peer: Peer) => Promise<T>): Promise<T> {
  const peer = createPeer(id, services!, snapshots!);
  live.add(peer);
  try {
    return await task(peer);
  } finally {
    live.delete(peer);
  }
}

async function main(): Promise<void> {
  log(
    `oah bench (${quick ? "quick" : "full"}): workloads ${plan.workloads.map((w) => w.name).join(",")}; ` +
      `systems ${plan.peers.join(", ")}; ${plan.reps} repetition(s)`,
  );
  services = await findServices(plan.privateServices);
  snapshots = new OahSnapshots(services);
  log(`PostgreSQL: ${services.origin.postgres}; Redis: ${services.origin.redis}`);
  const header = runHeader(plan, services.origin, new Date());
  const context: WorkloadContext = { plan, services, withPeer };
  const measured = new Measured();
  for (const workload of plan.workloads)
    measured.add(workload.report(await workload.run(context), plan, measured.sections));

  const { results, report } = runResults(header, measured, Math.round(elapsedSeconds()));
  print();
  for (const line of report) print(line);
  const file = isAbsolute(outFile) ? outFile : join(REPO_ROOT, outFile);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, formatJson(results));
  print();
  if (file === join(REPO_ROOT, LATEST_RESULTS)) {
    writeReadmeReport(REPO_ROOT, report);
    log(`${BENCH_README}: the committed figures rewritten from it`);
  }
  log(`written: ${relative(REPO_ROOT, file)} (${results.durationSeconds} s in all)`);
}

try {
  await main();
} catch (error) {
  log(`bench failed: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
} finally {
  for (const p of live) await p.teardown().catch(() => {});
  await snapshots?.dispose().catch(() => {});
  await services?.dispose().catch(() => {});
}
