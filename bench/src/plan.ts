import { join } from "node:path";
import { namesFrom, type OptionValues, positiveInteger, UsageError } from "./command-line";
import { PEER_IDS, type PeerId } from "./peers/types";
import { WORKLOADS } from "./registry";
import type { Workload } from "./workload";

/** What `--quick` runs (throughput at its first slot count alone). */
const QUICK = ["throughput", "dispatch", "parts", "submit"];

/** Where a whole run (or a quick one) writes its results; bench/README.md's tables come from it. */
export const LATEST_RESULTS = join("bench", "results", "latest.json");

const NAME_WIDTH = Math.max(...WORKLOADS.map((w) => w.name.length));

/** A workload in `--help`: its name, its letter, what it measures, and on what. */
function usageOf(w: Workload): string {
  const on =
    w.systems === "peers" ? "every system of --peers, alternating" : `${w.systems.own} (not --peers)`;
  return `  ${w.name.padEnd(NAME_WIDTH)}  ${w.alias}  ${w.measures}\n  ${" ".repeat(NAME_WIDTH + 5)}on ${on}\n`;
}

export const BENCH_USAGE = `Usage: npm run bench -- [options]

Runs the same workloads on oah and on its peers, alternating them within each
repetition, prints a table of medians (min–max) with the ratios oah / peer, and
writes bench/results/latest.json.

  --quick               ${QUICK.join(", ")} only, smaller (throughput at 8 slots), 1 repetition
  --only name,...       these workloads only (names or letters, below), in the order below
  --workloads a,...     the same as --only
  --peers id,...        ${PEER_IDS.join(", ")}
  --reps N              repetitions (1: about 11 minutes; the committed figures are
                        from --reps 3 --out bench/results/latest.json, about 32)
  --private-services    throwaway PostgreSQL and Redis even when shared ones answer
  --out FILE            where the results go; a selection (--only, --peers, --reps)
                        writes bench/results/custom.json unless told
  -h, --help            this

Workloads, in the order they run (name, letter, what it measures, on what):
${WORKLOADS.map(usageOf).join("")}`;

/** The workloads a comma-separated list names (names or letters), in the order they run. */
function workloadsFrom(option: string, value: string): Workload[] {
  const names = value.split(",").filter((n) => n !== "");
  if (names.length === 0) throw new UsageError(`--${option} names nothing`);
  const chosen = new Set<Workload>();
  for (const n of names) {
    const workload = WORKLOADS.find((w) => w.name === n || w.alias === n);
    if (!workload)
      throw new UsageError(
        `--${option}: no workload "${n}" (one of ${WORKLOADS.map((w) => `${w.name} (${w.alias})`).join(", ")})`,
      );
    chosen.add(workload);
  }
  return WORKLOADS.filter((w) => chosen.has(w));
}

/** The workloads of `--only` or `--workloads` (one of them), or of the whole or quick bench. */
function selectedWorkloads(values: BenchOptionValues): readonly Workload[] {
  if (values.only !== undefined && values.workloads !== undefined)
    throw new UsageError("--only and --workloads are the same option: give one");
  if (values.only !== undefined) return workloadsFrom("only", values.only);
  if (values.workloads !== undefined) return workloadsFrom("workloads", values.workloads);
  return values.quick ? workloadsFrom("quick", QUICK.join(",")) : WORKLOADS;
}

export const BENCH_OPTIONS = {
  quick: { type: "boolean", default: false },
  only: { type: "string" },
  workloads: { type: "string" },
  peers: { type: "string" },
  reps: { type: "string" },
  "private-services": { type: "boolean", default: false },
  out: { type: "string" },
} as const;

export type BenchOptionValues = OptionValues<typeof BENCH_OPTIONS>;

/** What a run of the bench measures, from its options; a bad option is a UsageError. */
export function benchPlan(values: BenchOptionValues) {
  const { quick } = values;
  // A selection writes aside, so that it never replaces the results of a whole run.
  const custom =
    values.only !== undefined ||
    values.workloads !== undefined ||
    values.peers !== undefined ||
    values.reps !== undefined;
  return {
    quick,
    privateServices: values["private-services"],
    outFile: values.out ?? (custom ? join("bench", "results", "custom.json") : LATEST_RESULTS),
    reps: values.reps === undefined ? 1 : positiveInteger("reps", values.reps),
    workloads: selectedWorkloads(values),
    peers: values.peers === undefined ? [...PEER_IDS] : namesFrom<PeerId>("peers", values.peers, PEER_IDS),
    throughput: { sessions: quick ? 100 : 500, runsPerSession: 20, slots: quick ? [8] : [8, 32] },
    dispatch: { samples: quick ? 100 : 200 },
    mixed: { ratePerSecond: 200, seconds: 10 },
    admin: { runs: 1_000_000, rounds: 3, requestsPerRound: 10, warmUp: 3, sqlite: true },
    memory: { queued: 4_000 },
    commands: { samples: 200 },
    checkpoints: {
      samples: quick ? 30 : 100,
      warmUp: 5,
      sessions: 8,
      turns: quick ? 4 : 10,
      slots: 8,
      stepEnds: quick ? 200 : 1_000,
    },
    streams: { streams: quick ? 200 : 1_000, runsPerSession: 3, runsPerSecond: quick ? 50 : 200 },
    parked: { parked: 5_000, sessions: 500, runsPerSession: 20, slots: 8 },
    bulk: { quarantined: 20_000, sessions: 500, runsPerSession: 20, slots: 8 },
    longRuns: {
      slots: 1_000,
      sessions: 1_000,
      runsPerSession: 3,
      runMs: 1_000,
      holdMs: 60_000,
      sampleSeconds: 15,
    },
    scale: {
      slots: 8,
      shapes: [
        [500, 20],
        [10_000, 1],
        [100, 100],
      ] as [number, number][],
    },
    submit: {
      singles: quick ? 5_000 : 20_000,
      clients: 64,
      batched: quick ? 20_000 : 100_000,
      batchSize: 1_000,
      batchClients: 4,
    },
  };
}

export type BenchPlan = ReturnType<typeof benchPlan>;
