// (h) Long runs on one host: an oah-api with `slots` workers (Redis + PostgreSQL) drains
// sessions × runsPerSession runs of runMs each, against the ideal (runsPerSession × runMs: each
// session's runs one after the other, every session at once). Then, with `slots` runs of
// `holdMs` all active at once, the CPU the host process and PostgreSQL spend per second over
// `sampleSeconds` (a few heartbeat periods): what keeping that many runs alive costs.
import { readdirSync, readFileSync } from "node:fs";
import { waitFor } from "@oah/testing";
import { log } from "../log";
import type { OahRedisPgEmbedded } from "../peers/oah-redis-pg-embedded";
import type { JobSpec } from "../peers/types";
import { round, summarize } from "../stats";
import { type Workload, withRedisPg } from "../workload";

export interface LongRunsShape {
  slots: number;
  sessions: number;
  runsPerSession: number;
  runMs: number;
  holdMs: number;
  sampleSeconds: number;
}

export interface LongRunsRound {
  drainSeconds: number;
  idealSeconds: number;
  /** Drain / ideal: 1 is no overhead at all. */
  drainRatio: number;
  /** Per cent of one core, while `slots` runs are active: the oah host, and every PostgreSQL process. */
  hostCpuPercent: number;
  postgresCpuPercent: number;
}

export type WithEmbedded = <T>(task: (peer: OahRedisPgEmbedded) => Promise<T>) => Promise<T>;

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used (/proc/<pid>/stat, clock ticks). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds of every PostgreSQL process of this machine (server and backends). */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").startsWith("postgres"))
        total += cpuSeconds(Number(entry));
    } catch {}
  }
  return total;
}

const jobsOf = (sessions: number, runsPerSession: number, sleepMs: number, tag: string): JobSpec[] =>
  Array.from({ length: runsPerSession }, () =>
    Array.from({ length: sessions }, (_, s) => ({ sessionId: `${tag}-${s}`, sleepMs })),
  ).flat();

export async function longRunsOnce(withEmbedded: WithEmbedded, shape: LongRunsShape): Promise<LongRunsRound> {
  const drain = await withEmbedded(async (peer) => {
    const jobs = jobsOf(shape.sessions, shape.runsPerSession, shape.runMs, "long");
    await peer.setup();
    try {
      await peer.submitBulk(jobs);
      await peer.startWorkers(shape.slots);
      await peer.waitDone(jobs.length, 300_000);
      const timings = await peer.timings();
      const first = Math.min(...timings.map((t) => t.startedAt));
      const last = Math.max(...timings.map((t) => t.endedAt));
      return (last - first) / 1000;
    } finally {
      await peer.teardown();
    }
  });
  const cpu = await withEmbedded(async (peer) => {
    await peer.setup();
    try {
      await peer.submitBulk(jobsOf(shape.slots, 1, shape.holdMs, "held"));
      await peer.startWorkers(shape.slots);
      await waitFor(
        "every run to be active",
        async () => (await peer.startedCount()) >= shape.slots,
        120_000,
        200,
      );
      const pid = peer.hostPid();
      const [host0, pg0, t0] = [cpuSeconds(pid), postgresCpuSeconds(), performance.now()];
      await new Promise((resolve) => setTimeout(resolve, shape.sampleSeconds * 1000));
      const seconds = (performance.now() - t0) / 1000;
      return {
        host: ((cpuSeconds(pid) - host0) / seconds) * 100,
        postgres: ((postgresCpuSeconds() - pg0) / seconds) * 100,
      };
    } finally {
      await peer.teardown();
    }
  });
  const idealSeconds = (shape.runsPerSession * shape.runMs) / 1000;
  const result = {
    drainSeconds: round(drain, 2),
    idealSeconds,
    drainRatio: round(drain / idealSeconds, 2),
    hostCpuPercent: round(cpu.host, 1),
    postgresCpuPercent: round(cpu.postgres, 1),
  };
  log(`  long runs: ${JSON.stringify(result)}`);
  return result;
}

export const longRuns: Workload<LongRunsRound[]> = {
  name: "long-runs",
  alias: "h",
  measures: "1,000 sessions × 3 runs of 1 s on one host of 1,000 slots, and the CPU of 1,000 active runs",
  systems: { own: "oah Redis+PG, one oah-api of 1,000 slots" },
  writes: {
    longRuns: [
      "unit",
      "shape",
      "drainSeconds",
      "idealSeconds",
      "drainRatio",
      "hostCpuPercent",
      "postgresCpuPercent",
    ],
  },
  async run(context) {
    const { plan } = context;
    const shape = plan.longRuns;
    const rounds: LongRunsRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(h) ${shape.sessions}×${shape.runsPerSession} runs of ${shape.runMs} ms on one host of ${shape.slots} slots, ` +
          `then ${shape.slots} active runs' heartbeats, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await longRunsOnce(withRedisPg(context), shape));
    }
    return rounds;
  },
  report(rounds, plan) {
    const shape = plan.longRuns;
    const of = (pick: (r: LongRunsRound) => number) => summarize(rounds.map(pick));
    const longRuns = {
      unit: "drain = last end − first start (s), against the ideal; CPU in % of one core over the sample, all runs active",
      shape,
      drainSeconds: of((r) => r.drainSeconds),
      idealSeconds: rounds[0]!.idealSeconds,
      drainRatio: of((r) => r.drainRatio),
      hostCpuPercent: of((r) => r.hostCpuPercent),
      postgresCpuPercent: of((r) => r.postgresCpuPercent),
    };
    return {
      sections: { longRuns },
      absolute: [
        {
          figure: `long runs: drain / ideal (${longRuns.idealSeconds} s), ${shape.slots} slots on one host`,
          value: longRuns.drainRatio,
        },
        {
          figure: `${shape.slots} active runs: oah host CPU (% of one core)`,
          value: longRuns.hostCpuPercent,
        },
        {
          figure: `${shape.slots} active runs: PostgreSQL CPU (% of one core)`,
          value: longRuns.postgresCpuPercent,
        },
      ],
    };
  },
};
