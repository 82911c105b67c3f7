// @module-tag unit

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { formatJson } from "../src/json";
import { PEER_IDS } from "../src/peers";
import { type BenchOptionValues, type BenchPlan, benchPlan, LATEST_RESULTS } from "../src/plan";
import { WORKLOADS } from "../src/registry";
import { Measured, RUN_KEYS, runHeader, runResults } from "../src/results";
import { type Summary, summarize } from "../src/stats";
import type { Workload } from "../src/workload";
import { admin } from "../src/workloads/admin";
import { bulk } from "../src/workloads/bulk";
import {
  CHECKPOINT_MODES,
  CHECKPOINT_RESULTS,
  CHECKPOINT_SYSTEMS,
  checkpoints,
} from "../src/workloads/checkpoints";
import { COMMAND_MODES, commands } from "../src/workloads/commands";
import { dispatch } from "../src/workloads/dispatch";
import { longRuns } from "../src/workloads/long-runs";
import { memory } from "../src/workloads/memory";
import { mixed } from "../src/workloads/mixed";
import { parked } from "../src/workloads/parked";
import { parts } from "../src/workloads/parts";
import { scale } from "../src/workloads/scale";
import { streams } from "../src/workloads/streams";
import { submit } from "../src/workloads/submit";
import { throughput } from "../src/workloads/throughput";

// What each workload's run could have returned for a plan (every figure made up), so that
// a result of any shape can be written without measuring anything.
type Sample = (plan: BenchPlan) => unknown;
const sample = <R>(_: Workload<R>, raw: (plan: BenchPlan) => R): Sample => raw;
const repeated = <T>(plan: BenchPlan, round: T): T[] => Array.from({ length: plan.reps }, () => round);
const byKey = <T>(keys: readonly string[], round: (key: string) => T) =>
  new Map(keys.map((key) => [key, round(key)]));
const figures: Summary = summarize([1, 2, 3]);
const adminStore = {
  runs: 1_000_000,
  loadSeconds: 30,
  queries: { "list, status=failed": { path: "/x", p50: figures, p95: figures, items: 50 } },
  listP95Ms: 20,
  overviewP95Ms: 4,
};

const SAMPLES = new Map<string, Sample>([
  [
    throughput.name,
    sample(throughput, (plan) =>
      byKey(
        plan.throughput.slots.flatMap((slots) => plan.peers.map((id) => `${slots}:${id}`)),
        () =>
          repeated(plan, { runsPerSecond: 1500, drainSeconds: 6.6, submitSeconds: 0.4, completed: 10_000 }),
      ),
    ),
  ],
  [
    dispatch.name,
    sample(dispatch, (plan) =>
      byKey(plan.peers, () =>
        repeated(plan, { samples: 100, p50Ms: 2, p99Ms: 8, storeP50Ms: 1, storeP99Ms: 6, acceptP50Ms: 1.5 }),
      ),
    ),
  ],
  [
    mixed.name,
    sample(mixed, (plan) =>
      byKey(plan.peers, () =>
        repeated(plan, {
          runs: 2000,
          ratePerSecond: 200,
          achievedRatePerSecond: 199,
          queueWaitP50Ms: 2,
          queueWaitP99Ms: 9,
          maxSendLagMs: 3,
        }),
      ),
    ),
  ],
  [
    admin.name,
    sample(admin, () => ({
      runs: 1_000_000,
      rounds: 3,
      requestsPerRound: 10,
      postgres: adminStore,
      sqlite: adminStore,
    })),
  ],
  [
    memory.name,
    sample(memory, (plan) =>
      repeated(plan, {
        idleApiEmbeddedRssMb: 90,
        idleApiOnlyRssMb: 80,
        idleSandboxRssMb: 70,
        apiOnlyRssMbPer1000Queued: 0.5,
        redisMbPer1000QueuedOah: 0.6,
        redisMbPer1000QueuedBullmq: 0.4,
        embeddedRssMbPer1000Queued: 0.7,
      }),
    ),
  ],
  [
    parts.name,
    sample(
      parts,
      (plan) =>
        new Map(
          plan.throughput.slots.map((slots) => [
            slots,
            repeated(plan, {
              storeAloneRunsPerSecond: 3000,
              queueAloneRunsPerSecond: 5000,
              floorRunsPerSecond: 9000,
            }),
          ]),
        ),
    ),
  ],
  [
    commands.name,
    sample(
      commands,
      (plan) =>
        new Map(
          COMMAND_MODES.map((mode) => [
            mode,
            repeated(plan, { mode, samples: 200, stepP50Ms: 30, stepP99Ms: 40, runP50Ms: 35, runP99Ms: 45 }),
          ]),
        ),
    ),
  ],
  [
    checkpoints.name,
    sample(checkpoints, (plan) => {
      const turn = {
        runs: 50,
        checkpointsPerRun: 10,
        jsonBytesPerStep: 300,
        storedBytesPerStep: 250,
        rewriteJsonBytesPerStep: 1500,
        outputJsonBytes: 3000,
      };
      const rounds = byKey(
        CHECKPOINT_SYSTEMS.flatMap((system) => CHECKPOINT_MODES.map((mode) => `${system}:${mode}`)),
        (key) => {
          const [system, mode] = key.split(":") as [(typeof CHECKPOINT_SYSTEMS)[number], "on" | "off"];
          return repeated(plan, {
            system,
            mode,
            runP50Ms: mode === "on" ? 32 : 30,
            runP99Ms: 50,
            runsPerSecond: mode === "on" ? 95 : 100,
            firstTurn: turn,
            byTurn: [turn, turn],
          });
        },
      );
      const stepEnds = byKey(CHECKPOINT_SYSTEMS, () =>
        repeated(plan, { samples: 1000, withCheckpointP50Ms: 0.4, withoutP50Ms: 0.3 }),
      );
      return { rounds, stepEnds };
    }),
  ],
  [
    parked.name,
    sample(parked, (plan) =>
      repeated(plan, {
        runsPerSecondAlone: 1800,
        runsPerSecondBesideParked: 1700,
        sandboxRssMbAlone: 100,
        sandboxRssMbBesideParked: 101,
      }),
    ),
  ],
  [submit.name, sample(submit, (plan) => repeated(plan, { singlePerSec: 2700, batchedPerSec: 17_000 }))],
  [
    longRuns.name,
    sample(longRuns, (plan) =>
      repeated(plan, {
        drainSeconds: 3.8,
        idealSeconds: 3,
        drainRatio: 1.27,
        hostCpuPercent: 5,
        postgresCpuPercent: 3,
      }),
    ),
  ],
  [
    scale.name,
    sample(scale, (plan) =>
      byKey(
        plan.scale.shapes.map(([sessions, runsPerSession]) => `${sessions}x${runsPerSession}`),
        () => repeated(plan, 1500),
      ),
    ),
  ],
  [
    bulk.name,
    sample(bulk, (plan) =>
      repeated(plan, { runsPerSecondAlone: 1800, runsPerSecondBesideJob: 1500, jobDoneDuringDrain: 3000 }),
    ),
  ],
  [
    streams.name,
    sample(streams, (plan) =>
      repeated(plan, {
        streams: 1000,
        runs: 3000,
        openSeconds: 2,
        apiRssMb: 150,
        latencyP50Ms: 13,
        latencyP99Ms: 72,
        latencyMaxMs: 120,
        serverP50AtMostMs: 10,
        serverP99AtMostMs: 50,
        events: 6000,
      }),
    ),
  ],
]);

/** The results file a run of this plan writes, as written (JSON: undefined fields left out). */
function writtenBy(values: Partial<BenchOptionValues>): Record<string, unknown> {
  const plan = benchPlan({ quick: false, "private-services": false, ...values });
  const measured = new Measured();
  for (const w of plan.workloads) measured.add(w.report(SAMPLES.get(w.name)!(plan), plan, measured.sections));
  const header = runHeader(plan, { postgres: "postgres://", redis: "redis://" }, new Date());
  return JSON.parse(formatJson(runResults(header, measured, 60).results));
}

const RUN_OWN = new Set<string>(RUN_KEYS);

/** The run's own keys, and each workload section's key and `section.field` under it. */
function keysOf(results: Record<string, unknown>): Set<string> {
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(results)) {
    keys.add(key);
    if (!RUN_OWN.has(key)) for (const field of Object.keys(value as object)) keys.add(`${key}.${field}`);
  }
  return keys;
}

/** The keys those workloads declare they write, with the run's own. */
function declaredBy(workloads: readonly Workload[]): Set<string> {
  const keys = new Set<string>(RUN_KEYS);
  for (const w of workloads)
    for (const [section, fields] of Object.entries(w.writes)) {
      keys.add(section);
      for (const field of fields) keys.add(`${section}.${field}`);
    }
  return keys;
}

const sorted = (keys: Set<string>) => [...keys].sort();

/** The results files the repository keeps: the whole run's, and those a workload's own run wrote. */
const COMMITTED_RESULTS = [LATEST_RESULTS, CHECKPOINT_RESULTS];

describe("the keys of the bench's results file", () => {
  it("every workload of the registry has a sample here", () => {
    expect(WORKLOADS.map((w) => SAMPLES.has(w.name))).toEqual(WORKLOADS.map(() => true));
  });

  it("a --quick run writes exactly the keys its workloads declare", () => {
    const plan = benchPlan({ quick: true, "private-services": false });
    const results = writtenBy({ quick: true });
    expect(sorted(keysOf(results))).toEqual(sorted(declaredBy(plan.workloads)));
    // The sections of a quick run, as its results file has always had them.
    expect(Object.keys(results).filter((k) => !RUN_OWN.has(k))).toEqual([
      "throughput",
      "dispatch",
      "parts",
      "submit",
    ]);
    expect(results.throughput).toMatchObject({ storeAlone: 3000, floor: 9000, headlineSlots: 8 });
  });

  it("a whole run writes exactly the keys every workload declares", () => {
    expect(sorted(keysOf(writtenBy({})))).toEqual(sorted(declaredBy(WORKLOADS)));
  });

  it("a selection writes its workloads' keys alone; parts without throughput leaves throughput out", () => {
    const results = writtenBy({ only: "parts,submit", peers: "oahRedisPg,bullmq" });
    const declared = declaredBy(WORKLOADS.filter((w) => w.name === "parts" || w.name === "submit"));
    const written = keysOf(results);
    for (const key of written) expect(declared).toContain(key);
    expect(written.has("throughput")).toBe(false);
  });

  it("a throughput of some peers writes a figure for each of those alone", () => {
    const results = writtenBy({ only: "throughput", peers: "oahSplit,bullmq" });
    const peersWritten = Object.keys(results.throughput as object).filter((k) =>
      (PEER_IDS as readonly string[]).includes(k),
    );
    expect(peersWritten).toEqual(["oahSplit", "bullmq"]);
  });

  it("the committed results (bench/results/latest.json and those of one workload) have no key that no workload declares", () => {
    const declared = declaredBy(WORKLOADS);
    for (const file of COMMITTED_RESULTS) {
      const committed = JSON.parse(readFileSync(join(REPO_ROOT, file), "utf8"));
      const undeclared = sorted(keysOf(committed)).filter((key) => !declared.has(key));
      expect({ file, undeclared }).toEqual({ file, undeclared: [] });
    }
  });
});
