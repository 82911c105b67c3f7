import { join } from "node:path";
import { namesFrom, type OptionValues, positiveInteger } from "./command-line";
import { PEER_IDS, type PeerId } from "./peers/types";

export const WORKLOADS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "k", "l", "p", "s"] as const;
export type Workload = (typeof WORKLOADS)[number];

/** Where a whole run (or a quick one) writes its results; bench/README.md's tables come from it. */
export const LATEST_RESULTS = join("bench", "results", "latest.json");

export const BENCH_USAGE = `Usage: npm run bench -- [options]

Runs the same workloads on oah and on its peers, alternating them within each
repetition, prints a table of medians (min–max) with the ratios oah / peer, and
writes bench/results/latest.json.

  --quick               workloads a (8 slots), b, f and i only, smaller, 1 repetition
  --workloads a,b,...   a throughput, b dispatch latency, c mixed, d admin at
                        1,000,000 runs, e memory, f the store alone and the queue alone,
                        g what a command's sandbox costs, h long runs: 1,000 sessions × 3
                        runs of 1 s on one host of 1,000 slots, and the CPU of 1,000 active
                        runs' heartbeats (oah only), i submissions over HTTP,
                        single from 64 clients and in batches of 1,000 (oah only), k 500×20 no-op runs while a
                        bulk requeue works through 20,000 dead letters (oah only), l sessions scale:
                        10,000×1 and 100×100 beside 500×20 (oah only), p 500×20 no-op runs beside
                        5,000 parked sessions on one sandbox (oah only), s 1,000 open
                        event streams and the time an event takes from a sandbox to
                        them (oah only)
  --peers id,...        ${PEER_IDS.join(", ")}
  --reps N              repetitions (1: about 11 minutes; the committed figures are
                        from --reps 3 --out bench/results/latest.json, about 32)
  --private-services    throwaway PostgreSQL and Redis even when shared ones answer
  --out FILE            where the results go; a selection (--workloads, --peers,
                        --reps) writes bench/results/custom.json unless told
  -h, --help            this
`;

export const BENCH_OPTIONS = {
  quick: { type: "boolean", default: false },
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
  const custom = values.workloads !== undefined || values.peers !== undefined || values.reps !== undefined;
  return {
    quick,
    privateServices: values["private-services"],
    outFile: values.out ?? (custom ? join("bench", "results", "custom.json") : LATEST_RESULTS),
    reps: values.reps === undefined ? 1 : positiveInteger("reps", values.reps),
    workloads: new Set<Workload>(
      values.workloads === undefined
        ? quick
          ? ["a", "b", "f", "i"]
          : WORKLOADS
        : namesFrom("workloads", values.workloads, WORKLOADS),
    ),
    peers: values.peers === undefined ? [...PEER_IDS] : namesFrom<PeerId>("peers", values.peers, PEER_IDS),
    throughput: { sessions: quick ? 100 : 500, runsPerSession: 20, slots: quick ? [8] : [8, 32] },
    dispatch: { samples: quick ? 100 : 200 },
    mixed: { ratePerSecond: 200, seconds: 10 },
    admin: { runs: 1_000_000, rounds: 3, requestsPerRound: 10, warmUp: 3, sqlite: true },
    memory: { queued: 4_000 },
    commands: { samples: 200 },
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
