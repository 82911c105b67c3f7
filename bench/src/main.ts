// `npm run bench`: the same workloads on oah (Redis + PostgreSQL with its embedded
// pool, and split into `--api-only` + sandboxes; the embedded default on SQLite) and
// on its peers (BullMQ, graphile-worker with a named queue per session), in one
// process tree and one sitting. Systems alternate within each repetition (A B C …
// A B C …) so that drift spreads over all of them; every figure is the median of
// the repetitions, with min and max. Options: see BENCH_USAGE (`-- --help`).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { readCommandLine } from "./command-line";
import { formatJson } from "./json";
import { elapsedSeconds, log, print } from "./log";
import { createPeer, OahSnapshots, PEER_LABELS, type Peer, type PeerId } from "./peers";
import type { OahRedisPgEmbedded } from "./peers/oah-redis-pg-embedded";
import type { OahSplit } from "./peers/oah-split";
import { BENCH_OPTIONS, BENCH_USAGE, benchPlan, LATEST_RESULTS } from "./plan";
import { BENCH_README, writeReadmeReport } from "./readme";
import { findServices, type Services } from "./services";
import { type Summary, summarize } from "./stats";
import { type AbsoluteRow, absoluteTable, type ComparedRow, cell, comparedTable } from "./table";
import { type AdminResult, adminBench } from "./workloads/admin";
import { type BulkRound, bulkOnce } from "./workloads/bulk";
import {
  COMMAND_MODES,
  type CommandCostResult,
  type CommandMode,
  commandCostOnce,
} from "./workloads/commands";
import { DISPATCH_SLOTS, type DispatchResult, dispatchOnce } from "./workloads/dispatch";
import { type LongRunsRound, longRunsOnce } from "./workloads/long-runs";
import { type MemoryRound, memoryOnce } from "./workloads/memory";
import { MIXED_SESSIONS, MIXED_SLOTS, type MixedResult, mixedOnce } from "./workloads/mixed";
import { type ParkedRound, parkedOnce } from "./workloads/parked";
import { type PartsResult, partsOnce } from "./workloads/parts";
import { type StreamsResult, streamsOnce } from "./workloads/streams";
import { type SubmitRound, submitOnce } from "./workloads/submit";
import { type ThroughputResult, throughputOnce } from "./workloads/throughput";

const plan = readCommandLine(BENCH_USAGE, { options: BENCH_OPTIONS }, benchPlan);
const { quick, outFile } = plan;

const OAH_IDS = plan.peers.filter((id) => id.startsWith("oah"));
const OTHER_IDS = plan.peers.filter((id) => !id.startsWith("oah"));

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

const summary = (xs: number[]): Summary => summarize(xs);

/** Appends to the list under a key. */
function add<V>(lists: Map<string, V[]>, key: string, value: V): void {
  const list = lists.get(key) ?? [];
  list.push(value);
  lists.set(key, list);
}

async function main(): Promise<void> {
  log(
    `oah bench (${quick ? "quick" : "full"}): workloads ${[...plan.workloads].join(",")}; ` +
      `systems ${plan.peers.join(", ")}; ${plan.reps} repetition(s)`,
  );
  services = await findServices(plan.privateServices);
  snapshots = new OahSnapshots(services);
  log(`PostgreSQL: ${services.origin.postgres}; Redis: ${services.origin.redis}`);
  const results: Record<string, unknown> = {
    at: new Date().toISOString(),
    quick,
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGb: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform} ${process.arch}`,
    },
    services: services.origin,
    repetitions: plan.reps,
    systems: Object.fromEntries(plan.peers.map((id) => [id, PEER_LABELS[id]])),
    method: {
      order:
        "systems alternate within each repetition (A B C … A B C …); figures are medians with min and max",
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
    },
  };
  const compared: ComparedRow[] = [];
  const absolute: AbsoluteRow[] = [];
  const vs = (oah: PeerId, peer: PeerId) => `${PEER_LABELS[oah]} vs ${PEER_LABELS[peer]}`;
  /** Throughput medians of (a) by `${slots}:${peer}`: (f) compares its parts with them. */
  const throughputMedians = new Map<string, Summary>();

  // (a) throughput
  if (plan.workloads.has("a")) {
    const { sessions, runsPerSession } = plan.throughput;
    const raw = new Map<string, ThroughputResult[]>();
    for (let rep = 1; rep <= plan.reps; rep++) {
      for (const slots of plan.throughput.slots) {
        log(
          `(a) throughput ${sessions}×${runsPerSession} no-op runs, ${slots} slots, repetition ${rep}/${plan.reps}`,
        );
        for (const id of plan.peers) {
          const r = await withPeer(id, (p) => throughputOnce(p, sessions, runsPerSession, slots));
          add(raw, `${slots}:${id}`, r);
        }
      }
    }
    const bySlots: Record<string, Record<string, unknown>> = {};
    for (const slots of plan.throughput.slots) {
      const here: Record<string, unknown> = {};
      bySlots[slots] = here;
      for (const id of plan.peers) {
        const rs = raw.get(`${slots}:${id}`)!;
        const s = summary(rs.map((r) => r.runsPerSecond));
        throughputMedians.set(`${slots}:${id}`, s);
        here[id] = {
          runsPerSecond: s,
          drainSeconds: summary(rs.map((r) => r.drainSeconds)),
          submitSeconds: summary(rs.map((r) => r.submitSeconds)),
          completed: rs.map((r) => r.completed),
        };
      }
      for (const oah of OAH_IDS)
        for (const peer of OTHER_IDS)
          compared.push({
            figure: `throughput, ${slots} slots (runs/s): ${vs(oah, peer)}`,
            oah: throughputMedians.get(`${slots}:${oah}`)!,
            peer: throughputMedians.get(`${slots}:${peer}`)!,
            better: "higher",
          });
    }
    const headline = plan.throughput.slots[0]!;
    results.throughput = {
      unit: "runs/s, completed / (last end − first start); medians at the headline slot count",
      workload: { sessions, runsPerSession, runs: sessions * runsPerSession },
      headlineSlots: headline,
      ...Object.fromEntries(plan.peers.map((id) => [id, throughputMedians.get(`${headline}:${id}`)!.median])),
      bySlots,
    };
  }

  // (b) dispatch latency
  if (plan.workloads.has("b")) {
    const raw = new Map<string, DispatchResult[]>();
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(b) dispatch latency, ${plan.dispatch.samples} runs one at a time, repetition ${rep}/${plan.reps}`,
      );
      for (const id of plan.peers) {
        const r = await withPeer(id, (p) => dispatchOnce(p, plan.dispatch.samples));
        add(raw, id, r);
      }
    }
    const byPeer: Partial<Record<PeerId, Record<string, Summary>>> = {};
    for (const id of plan.peers) {
      const rs = raw.get(id)!;
      byPeer[id] = {
        p50Ms: summary(rs.map((r) => r.p50Ms)),
        p99Ms: summary(rs.map((r) => r.p99Ms)),
        ownStampsP50Ms: summary(rs.map((r) => r.storeP50Ms)),
        ownStampsP99Ms: summary(rs.map((r) => r.storeP99Ms)),
        submitCallP50Ms: summary(rs.map((r) => r.acceptP50Ms)),
      };
    }
    for (const q of ["p50Ms", "p99Ms"] as const)
      for (const oah of OAH_IDS)
        for (const peer of OTHER_IDS)
          compared.push({
            figure: `dispatch ${q.slice(0, 3)}, submit → start (ms): ${vs(oah, peer)}`,
            oah: byPeer[oah]![q]!,
            peer: byPeer[peer]![q]!,
            better: "lower",
          });
    for (const oah of OAH_IDS)
      absolute.push({
        figure: `dispatch, ${PEER_LABELS[oah]}: enqueued_at → started_at in the store, p50 / p99 (ms)`,
        value: `${byPeer[oah]!.ownStampsP50Ms!.median} / ${byPeer[oah]!.ownStampsP99Ms!.median}`,
      });
    for (const id of plan.peers)
      absolute.push({
        figure: `dispatch, ${PEER_LABELS[id]}: the submit call returns, p50 (ms)`,
        value: byPeer[id]!.submitCallP50Ms!,
      });
    const head = byPeer.oahRedisPg ?? byPeer[OAH_IDS[0]!];
    results.dispatch = {
      unit: "ms, bench clock before submitting → the system's start stamp; idle pool, one run at a time",
      headline: byPeer.oahRedisPg ? "oahRedisPg" : OAH_IDS[0],
      p50Ms: head?.p50Ms?.median,
      p99Ms: head?.p99Ms?.median,
      slots: DISPATCH_SLOTS,
      samples: plan.dispatch.samples,
      byPeer,
    };
  }

  // (c) mixed
  if (plan.workloads.has("c")) {
    const { ratePerSecond, seconds } = plan.mixed;
    const raw = new Map<string, MixedResult[]>();
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(`(c) mixed: ${ratePerSecond} runs/s of 5–50 ms for ${seconds} s, repetition ${rep}/${plan.reps}`);
      for (const id of plan.peers) {
        const r = await withPeer(id, (p) => mixedOnce(p, ratePerSecond, seconds));
        add(raw, id, r);
      }
    }
    const byPeer: Partial<Record<PeerId, Record<string, Summary>>> = {};
    for (const id of plan.peers) {
      const rs = raw.get(id)!;
      byPeer[id] = {
        queueWaitP50Ms: summary(rs.map((r) => r.queueWaitP50Ms)),
        queueWaitP99Ms: summary(rs.map((r) => r.queueWaitP99Ms)),
        achievedRatePerSecond: summary(rs.map((r) => r.achievedRatePerSecond)),
        maxSendLagMs: summary(rs.map((r) => r.maxSendLagMs)),
      };
    }
    for (const q of ["queueWaitP50Ms", "queueWaitP99Ms"] as const)
      for (const oah of OAH_IDS)
        for (const peer of OTHER_IDS)
          compared.push({
            figure: `mixed queue wait ${q.slice(9, 12).toLowerCase()} (ms): ${vs(oah, peer)}`,
            oah: byPeer[oah]![q]!,
            peer: byPeer[peer]![q]!,
            better: "lower",
          });
    results.mixed = {
      unit: "ms, the system's enqueue stamp → its start stamp",
      ratePerSecond,
      seconds,
      sessions: MIXED_SESSIONS,
      slots: MIXED_SLOTS,
      runDurationMs: [5, 50],
      byPeer,
    };
  }

  // (d) admin
  if (plan.workloads.has("d")) {
    log(`(d) admin: storage list and overview on ${plan.admin.runs.toLocaleString("en")} runs`);
    const admin: AdminResult = await adminBench(services, plan.admin);
    for (const kind of ["postgres", "sqlite"] as const) {
      const r = admin[kind];
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
    results.admin = {
      unit: "ms, client-side, through the HTTP API; listP95Ms = the slowest list query's p95",
      listP95Ms: admin.postgres?.listP95Ms,
      overviewP95Ms: admin.postgres?.overviewP95Ms,
      ...admin,
    };
  }

  // (e) memory
  if (plan.workloads.has("e")) {
    const rounds: MemoryRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(`(e) memory, repetition ${rep}/${plan.reps}`);
      rounds.push(await memoryOnce(services, plan.memory.queued));
    }
    const m = Object.fromEntries(
      (Object.keys(rounds[0]!) as (keyof MemoryRound)[]).map((k) => [k, summary(rounds.map((r) => r[k]))]),
    ) as Record<keyof MemoryRound, Summary>;
    compared.push({
      figure: "Redis memory per 1,000 queued runs (MB): oah vs BullMQ",
      oah: m.redisMbPer1000QueuedOah,
      peer: m.redisMbPer1000QueuedBullmq,
      better: "lower",
    });
    absolute.push(
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
    );
    results.memory = {
      unit: "MB (VmRSS; Redis used_memory); per 1,000 queued runs after a warm-up burst of as many",
      note: "RSS holds garbage V8 has not collected yet, so the RSS growth per 1,000 queued runs is an upper bound",
      idleRssMb: m.idleApiEmbeddedRssMb.median,
      idleRssMbOf: "oah-api, embedded default (SQLite, default pool), idle",
      queuedRuns: plan.memory.queued,
      ...m,
    };
  }

  // (f) the parts of oah Redis+PG alone
  if (plan.workloads.has("f")) {
    const { sessions, runsPerSession } = plan.throughput;
    const raw = new Map<number, PartsResult[]>();
    for (let rep = 1; rep <= plan.reps; rep++)
      for (const slots of plan.throughput.slots) {
        log(`(f) the store alone and the queue alone, ${slots} slots, repetition ${rep}/${plan.reps}`);
        const list = raw.get(slots) ?? [];
        list.push(await partsOnce(services, sessions, runsPerSession, slots));
        raw.set(slots, list);
      }
    const bySlots: Record<string, Record<keyof PartsResult, Summary>> = {};
    for (const [slots, rs] of raw) {
      const store = summary(rs.map((r) => r.storeAloneRunsPerSecond));
      const queue = summary(rs.map((r) => r.queueAloneRunsPerSecond));
      const floor = summary(rs.map((r) => r.floorRunsPerSecond));
      bySlots[slots] = {
        storeAloneRunsPerSecond: store,
        queueAloneRunsPerSecond: queue,
        floorRunsPerSecond: floor,
      };
      absolute.push(
        { figure: `store alone (PostgreSQL: start, end, events), ${slots} slots (runs/s)`, value: store },
        { figure: `queue alone (Redis: claim, release), ${slots} slots (runs/s)`, value: queue },
        { figure: `the floor (a bare table, the same batch shape), ${slots} slots (runs/s)`, value: floor },
        {
          figure: `store alone / the floor, ${slots} slots`,
          value: String(Math.round((store.median / floor.median) * 100) / 100),
        },
      );
      const whole = throughputMedians.get(`${slots}:oahRedisPg`);
      if (whole)
        absolute.push({
          figure: `oah Redis+PG / the store alone, ${slots} slots`,
          value: String(Math.round((whole.median / store.median) * 100) / 100),
        });
      if (results.throughput && String(slots) === String(plan.throughput.slots[0]))
        Object.assign(results.throughput as object, { storeAlone: store.median, floor: floor.median });
      // The store alone is a ceiling of oah Redis+PG's throughput: set it beside the peers'.
      for (const peer of OTHER_IDS) {
        const theirs = throughputMedians.get(`${slots}:${peer}`);
        if (theirs)
          compared.push({
            figure: `throughput, ${slots} slots (runs/s): the store alone, the ceiling of oah Redis+PG, vs ${PEER_LABELS[peer]}`,
            oah: store,
            peer: theirs,
            better: "higher",
          });
      }
    }
    results.parts = {
      unit: "runs/s of each part of oah Redis+PG alone, in the bench process, on the shape of (a)",
      workload: { sessions, runsPerSession },
      bySlots,
    };
  }

  // (g) what a command's sandbox costs
  if (plan.workloads.has("g")) {
    const raw = new Map<CommandMode, CommandCostResult[]>();
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(g) one echo shell step per run, sandboxed (each network) and unconfined, repetition ${rep}/${plan.reps}`,
      );
      for (const mode of COMMAND_MODES) {
        const list = raw.get(mode) ?? [];
        list.push(await commandCostOnce(mode, plan.commands.samples));
        raw.set(mode, list);
      }
    }
    const byMode = Object.fromEntries(
      [...raw].map(([mode, rs]) => [
        mode,
        {
          stepP50Ms: summary(rs.map((r) => r.stepP50Ms)),
          stepP99Ms: summary(rs.map((r) => r.stepP99Ms)),
          runP50Ms: summary(rs.map((r) => r.runP50Ms)),
          runP99Ms: summary(rs.map((r) => r.runP99Ms)),
        },
      ]),
    );
    const sandboxed = byMode.on!;
    const offline = byMode.off!;
    const host = byMode["unsafe-host"]!;
    const added = (a: Summary, b: Summary) => Math.round((a.median - b.median) * 100) / 100;
    absolute.push(
      {
        figure: "shell step `echo`, sandboxed: step p50 / p99 (ms)",
        value: `${cell(sandboxed.stepP50Ms)} / ${cell(sandboxed.stepP99Ms)}`,
      },
      {
        figure: "shell step `echo`, unconfined (unsafe-host): step p50 / p99 (ms)",
        value: `${cell(host.stepP50Ms)} / ${cell(host.stepP99Ms)}`,
      },
      {
        figure: "the sandbox adds to a step, p50 / p99 (ms)",
        value: `${added(sandboxed.stepP50Ms, host.stepP50Ms)} / ${added(sandboxed.stepP99Ms, host.stepP99Ms)}`,
      },
      {
        figure: "of which the step's network (on, against off), p50 / p99 (ms)",
        value: `${added(sandboxed.stepP50Ms, offline.stepP50Ms)} / ${added(sandboxed.stepP99Ms, offline.stepP99Ms)}`,
      },
    );
    results.commands = {
      unit: "ms per run of one `echo` shell step, one run at a time, oah embedded (SQLite), 2 slots",
      samples: plan.commands.samples,
      byMode,
      addedByTheSandbox: {
        stepP50Ms: added(sandboxed.stepP50Ms, host.stepP50Ms),
        stepP99Ms: added(sandboxed.stepP99Ms, host.stepP99Ms),
        runP50Ms: added(sandboxed.runP50Ms, host.runP50Ms),
        runP99Ms: added(sandboxed.runP99Ms, host.runP99Ms),
      },
      addedByTheNetwork: {
        stepP50Ms: added(sandboxed.stepP50Ms, offline.stepP50Ms),
        stepP99Ms: added(sandboxed.stepP99Ms, offline.stepP99Ms),
        runP50Ms: added(sandboxed.runP50Ms, offline.runP50Ms),
        runP99Ms: added(sandboxed.runP99Ms, offline.runP99Ms),
      },
    };
  }

  // (p) no-op runs beside parked ones
  if (plan.workloads.has("p")) {
    const shape = plan.parked;
    const rounds: ParkedRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(p) ${shape.sessions}×${shape.runsPerSession} no-op runs beside ${shape.parked} parked sessions, ` +
          `${shape.slots} slots, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await parkedOnce((task) => withPeer("oahSplit", (peer) => task(peer as OahSplit)), shape));
    }
    const of = (pick: (r: ParkedRound) => number) => summary(rounds.map(pick));
    const ratio = of((r) => Math.round((r.runsPerSecondBesideParked / r.runsPerSecondAlone) * 100) / 100);
    absolute.push(
      {
        figure: `no-op runs beside ${shape.parked} parked sessions / alone, ${shape.slots} slots (throughput ratio)`,
        value: ratio,
      },
      {
        figure: "oah-sandbox RSS after the drain: alone / beside the parked sessions (MB)",
        value: `${cell(of((r) => r.sandboxRssMbAlone))} / ${cell(of((r) => r.sandboxRssMbBesideParked))}`,
      },
    );
    results.parked = {
      unit: "runs/s of the no-op runs, completed / (last end − first start); one oah-sandbox, split, Redis + PostgreSQL",
      shape,
      runsPerSecondAlone: of((r) => r.runsPerSecondAlone),
      runsPerSecondBesideParked: of((r) => r.runsPerSecondBesideParked),
      ratio,
      sandboxRssMbAlone: of((r) => r.sandboxRssMbAlone),
      sandboxRssMbBesideParked: of((r) => r.sandboxRssMbBesideParked),
    };
  }

  // (i) submission over HTTP
  if (plan.workloads.has("i")) {
    const shape = plan.submit;
    const rounds: SubmitRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(i) ${shape.singles} single submissions from ${shape.clients} clients, then ${shape.batched} runs in ` +
          `batches of ${shape.batchSize}, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await submitOnce((task) => withPeer("oahSplit", (peer) => task(peer as OahSplit)), shape));
    }
    const single = summary(rounds.map((r) => r.singlePerSec));
    const batched = summary(rounds.map((r) => r.batchedPerSec));
    absolute.push(
      { figure: `single submissions over HTTP, ${shape.clients} clients, Redis+PG (runs/s)`, value: single },
      {
        figure: `batched submissions over HTTP, ${shape.batchSize} a batch, Redis+PG (runs/s)`,
        value: batched,
      },
    );
    results.submit = {
      unit: "runs accepted per second, as the clients see it; oah-api --api-only on Redis + PostgreSQL, no worker",
      shape,
      singlePerSec: single.median,
      batchedPerSec: batched.median,
      single,
      batched,
    };
  }

  // (h) long runs on one host of 1,000 slots
  if (plan.workloads.has("h")) {
    const shape = plan.longRuns;
    const rounds: LongRunsRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(h) ${shape.sessions}×${shape.runsPerSession} runs of ${shape.runMs} ms on one host of ${shape.slots} slots, ` +
          `then ${shape.slots} active runs' heartbeats, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(
        await longRunsOnce(
          (task) => withPeer("oahRedisPg", (peer) => task(peer as OahRedisPgEmbedded)),
          shape,
        ),
      );
    }
    const of = (pick: (r: LongRunsRound) => number) => summary(rounds.map(pick));
    const drainRatio = of((r) => r.drainRatio);
    const hostCpu = of((r) => r.hostCpuPercent);
    const postgresCpu = of((r) => r.postgresCpuPercent);
    absolute.push(
      {
        figure: `long runs: drain / ideal (${rounds[0]!.idealSeconds} s), ${shape.slots} slots on one host`,
        value: drainRatio,
      },
      { figure: `${shape.slots} active runs: oah host CPU (% of one core)`, value: hostCpu },
      { figure: `${shape.slots} active runs: PostgreSQL CPU (% of one core)`, value: postgresCpu },
    );
    results.longRuns = {
      unit: "drain = last end − first start (s), against the ideal; CPU in % of one core over the sample, all runs active",
      shape,
      drainSeconds: of((r) => r.drainSeconds),
      idealSeconds: rounds[0]!.idealSeconds,
      drainRatio,
      hostCpuPercent: hostCpu,
      postgresCpuPercent: postgresCpu,
    };
  }

  // (l) sessions scale: the same runs over many sessions, or few
  if (plan.workloads.has("l")) {
    const { slots, shapes } = plan.scale;
    const raw = new Map<string, number[]>();
    for (let rep = 1; rep <= plan.reps; rep++)
      for (const [sessions, runsPerSession] of shapes) {
        log(`(l) ${sessions}×${runsPerSession} no-op runs, ${slots} slots, repetition ${rep}/${plan.reps}`);
        const r = await withPeer("oahRedisPg", (p) => throughputOnce(p, sessions, runsPerSession, slots));
        add(raw, `${sessions}x${runsPerSession}`, r.runsPerSecond);
      }
    const [base, ...others] = shapes.map(([s, r]) => `${s}x${r}`);
    const byShape = Object.fromEntries([...raw].map(([shape, xs]) => [shape, summary(xs)]));
    const ratios = Object.fromEntries(
      others.map((shape) => [
        shape,
        Math.round((byShape[shape]!.median / byShape[base!]!.median) * 100) / 100,
      ]),
    );
    for (const shape of others)
      absolute.push({
        figure: `sessions scale, oah Redis+PG, ${slots} slots: ${shape} / ${base} (throughput ratio)`,
        value: String(ratios[shape]!),
      });
    results.scale = {
      unit: "runs/s of oah Redis+PG (embedded pool), completed / (last end − first start); the ratios against the first shape",
      slots,
      runsPerSecond: byShape,
      ratios,
    };
  }

  // (k) the workers beside a bulk action
  if (plan.workloads.has("k")) {
    const shape = plan.bulk;
    const rounds: BulkRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(k) ${shape.sessions}×${shape.runsPerSession} no-op runs while a bulk requeue works through ` +
          `${shape.quarantined} dead letters, ${shape.slots} slots, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await bulkOnce((task) => withPeer("oahSplit", (peer) => task(peer as OahSplit)), shape));
    }
    const of = (pick: (r: BulkRound) => number) => summary(rounds.map(pick));
    const ratio = of((r) => Math.round((r.runsPerSecondBesideJob / r.runsPerSecondAlone) * 100) / 100);
    absolute.push({
      figure: `workers' throughput while a bulk requeue of ${shape.quarantined} runs works / without it, ${shape.slots} slots (ratio)`,
      value: ratio,
    });
    results.bulk = {
      unit: "runs/s completed by one oah-sandbox while the measured runs drain (requeued ones included); split, Redis + PostgreSQL",
      shape,
      runsPerSecondAlone: of((r) => r.runsPerSecondAlone),
      runsPerSecondBesideJob: of((r) => r.runsPerSecondBesideJob),
      jobDoneDuringDrain: of((r) => r.jobDoneDuringDrain),
      ratio,
    };
  }

  // (s) event streams
  if (plan.workloads.has("s")) {
    const rs: StreamsResult[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(`(s) ${plan.streams.streams} open event streams, repetition ${rep}/${plan.reps}`);
      rs.push(await streamsOnce(services, plan.streams));
    }
    const of = (pick: (r: StreamsResult) => number) => summary(rs.map(pick));
    const latency = {
      p50Ms: of((r) => r.latencyP50Ms),
      p99Ms: of((r) => r.latencyP99Ms),
      maxMs: of((r) => r.latencyMaxMs),
    };
    absolute.push(
      {
        figure: `${plan.streams.streams} session streams on one oah-api --api-only: opened in (s) / its memory (MB)`,
        value: `${cell(of((r) => r.openSeconds))} / ${cell(of((r) => r.apiRssMb))}`,
      },
      {
        figure:
          "a run's start or end on a sandbox to the API's stream: p50 / p99 / max (ms; target p99 ≤ 100)",
        value: `${cell(latency.p50Ms)} / ${cell(latency.p99Ms)} / ${cell(latency.maxMs)}`,
      },
    );
    results.streams = {
      unit: "session streams held open by clients of one oah-api --api-only while two oah-sandbox (8 slots each) execute every session's runs, Redis + PostgreSQL",
      shape: plan.streams,
      openSeconds: of((r) => r.openSeconds),
      apiRssMb: of((r) => r.apiRssMb),
      latency,
    };
  }

  results.durationSeconds = Math.round(elapsedSeconds());
  const report = [
    `#### oah beside its peers (${quick ? "quick" : "full"} run, ${plan.reps} ${plan.reps === 1 ? "repetition" : "repetitions"}, ` +
      `${String(results.at).slice(0, 10)}, ${results.durationSeconds} s)`,
    "",
    "Cells: median (min–max) over the repetitions. oah/peer above 1 is better for throughput, below 1 for",
    "times and sizes; ⚠ marks a figure where oah is behind.",
    "",
    ...comparedTable(compared),
    ...(absolute.length > 0 ? ["", ...absoluteTable(absolute)] : []),
  ];
  results.report = report;
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
