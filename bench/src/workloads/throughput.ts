// (a) Throughput: sessions × runsPerSession no-op runs, all submitted in bulk
// before any worker exists, then drained by `slots` execution slots.
// runs/s = completed / (last end − first start), from the system's own timestamps.
import { log } from "../log";
import { type JobSpec, PEER_IDS, type Peer } from "../peers";
import { round, type Summary, summarize } from "../stats";
import type { ComparedRow } from "../table";
import { add, oahSystems, otherSystems, type Sections, versus, type Workload } from "../workload";

export interface ThroughputResult {
  runsPerSecond: number;
  drainSeconds: number;
  /** Time to get everything queued (oah: a copy of the one real submission, see oah-snapshots.ts). */
  submitSeconds: number;
  completed: number;
}

/** Jobs in the order a busy client would send them: round-robin over the sessions. */
export function bulkJobs(sessions: number, runsPerSession: number, tag: string): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (let r = 0; r < runsPerSession; r++)
    for (let s = 0; s < sessions; s++) jobs.push({ sessionId: `${tag}-${s}`, sleepMs: 0 });
  return jobs;
}

export interface ThroughputOptions {
  /**
   * Jobs queued ahead of the measured ones (workload p: runs that park, or as many no-op
   * runs to warm the system alike); the figures count the measured jobs alone (oah).
   */
  ahead?: readonly JobSpec[];
  /** The `ahead` jobs finish too (else they never do): the drain waits for them as well. */
  aheadFinishes?: boolean;
  /** Called once the measured jobs are done, before the peer is torn down. */
  drained?: () => void;
}

export async function throughputOnce(
  peer: Peer,
  sessions: number,
  runsPerSession: number,
  slots: number,
  options: ThroughputOptions = {},
): Promise<ThroughputResult> {
  const measured = bulkJobs(sessions, runsPerSession, "tp");
  await peer.setup();
  try {
    const t0 = Date.now();
    await peer.submitBulk([...(options.ahead ?? []), ...measured]);
    const submitSeconds = (Date.now() - t0) / 1000;
    await peer.startWorkers(slots);
    const ahead = options.ahead ?? [];
    await peer.waitDone(measured.length + (options.aheadFinishes ? ahead.length : 0), 600_000);
    options.drained?.();
    const timings = (await peer.timings()).filter(
      (t) => ahead.length === 0 || t.sessionId === undefined || t.sessionId.startsWith("tp-"),
    );
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    for (const t of timings) {
      if (t.startedAt < first) first = t.startedAt;
      if (t.endedAt > last) last = t.endedAt;
    }
    const drainSeconds = Math.max(0.001, (last - first) / 1000);
    const result = {
      runsPerSecond: round(timings.length / drainSeconds),
      drainSeconds: round(drainSeconds, 2),
      submitSeconds: round(submitSeconds, 2),
      completed: timings.length,
    };
    log(
      `  throughput ${peer.id} ${slots} slots: ${result.runsPerSecond} runs/s ` +
        `(${result.completed} in ${result.drainSeconds} s; queued in ${result.submitSeconds} s)`,
    );
    return result;
  } finally {
    await peer.teardown();
  }
}

/** Each drain by `${slots}:${system}`, in the order of the repetitions. */
type ThroughputRaw = Map<string, ThroughputResult[]>;

export const throughput: Workload<ThroughputRaw> = {
  name: "throughput",
  alias: "a",
  measures: "runs/s draining 500 sessions × 20 no-op runs queued ahead, by 8 and by 32 slots",
  systems: "peers",
  writes: {
    throughput: ["unit", "workload", "headlineSlots", ...PEER_IDS, "bySlots"],
  },
  async run({ plan, withPeer }) {
    const { sessions, runsPerSession } = plan.throughput;
    const raw: ThroughputRaw = new Map();
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
    return raw;
  },
  report(raw, plan) {
    const { sessions, runsPerSession } = plan.throughput;
    const medians = new Map<string, Summary>();
    const compared: ComparedRow[] = [];
    const bySlots: Record<string, Record<string, unknown>> = {};
    for (const slots of plan.throughput.slots) {
      const here: Record<string, unknown> = {};
      bySlots[slots] = here;
      for (const id of plan.peers) {
        const rs = raw.get(`${slots}:${id}`)!;
        const s = summarize(rs.map((r) => r.runsPerSecond));
        medians.set(`${slots}:${id}`, s);
        here[id] = {
          runsPerSecond: s,
          drainSeconds: summarize(rs.map((r) => r.drainSeconds)),
          submitSeconds: summarize(rs.map((r) => r.submitSeconds)),
          completed: rs.map((r) => r.completed),
        };
      }
      for (const oah of oahSystems(plan))
        for (const peer of otherSystems(plan))
          compared.push({
            figure: `throughput, ${slots} slots (runs/s): ${versus(oah, peer)}`,
            oah: medians.get(`${slots}:${oah}`)!,
            peer: medians.get(`${slots}:${peer}`)!,
            better: "higher",
          });
    }
    const headline = plan.throughput.slots[0]!;
    const throughput = {
      unit: "runs/s, completed / (last end − first start); medians at the headline slot count",
      workload: { sessions, runsPerSession, runs: sessions * runsPerSession },
      headlineSlots: headline,
      ...Object.fromEntries(plan.peers.map((id) => [id, medians.get(`${headline}:${id}`)!.median])),
      bySlots,
    };
    return { sections: { throughput }, compared };
  },
};

/** A system's median throughput at that slot count, as the throughput workload wrote it (if it ran). */
export function throughputMedian(
  earlier: Readonly<Sections>,
  slots: number,
  id: string,
): Summary | undefined {
  const bySlots = earlier.throughput?.bySlots as Record<string, Record<string, { runsPerSecond: Summary }>>;
  return bySlots?.[slots]?.[id]?.runsPerSecond;
}
