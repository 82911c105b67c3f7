// (c) Mixed: runs that sleep 5–50 ms arrive at a fixed rate (open loop: each is
// sent at its time, whether or not earlier ones were answered) over 1,000
// sessions, on a running pool; queue wait = start − enqueue (each system's own
// stamps), p50/p99. The arrival sequence (sessions, durations) is the same for
// every system (a seeded generator). A warm-up second at the same rate, on other
// sessions, comes first and is not measured: what is measured is the steady state,
// not a new process's cold start (its first runs met connections still to open and
// code not yet compiled: queue waits of 40–130 ms in oah's first half-second).
import { log, sleep } from "../log";
import type { JobSpec, Peer, PeerId } from "../peers";
import { percentile, round, type Summary, summarize } from "../stats";
import type { ComparedRow } from "../table";
import { add, oahSystems, otherSystems, versus, type Workload } from "../workload";

export const MIXED_SESSIONS = 1_000;
export const MIXED_SLOTS = 16;
const MAX_IN_FLIGHT = 512;
const WARM_UP_SECONDS = 1;

export interface MixedResult {
  runs: number;
  ratePerSecond: number;
  achievedRatePerSecond: number;
  queueWaitP50Ms: number;
  queueWaitP99Ms: number;
  /** The latest a submission was sent after its time (the bench falling behind would show here). */
  maxSendLagMs: number;
}

/** A small seeded generator (mulberry32), so that every system gets the same arrivals. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function mixedJobs(count: number, seed = 42, tag = "mixed"): JobSpec[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => ({
    sessionId: `${tag}-${Math.floor(random() * MIXED_SESSIONS)}`,
    sleepMs: 5 + Math.floor(random() * 46),
  }));
}

/** Sends `jobs` at `ratePerSecond`, each at its time; resolves when every submission was answered. */
async function sendAtRate(
  peer: Peer,
  jobs: JobSpec[],
  ratePerSecond: number,
): Promise<{ sendSeconds: number; maxLagMs: number }> {
  const interval = 1000 / ratePerSecond;
  const inFlight = new Set<Promise<unknown>>();
  let maxLag = 0;
  let failure: unknown;
  const t0 = Date.now();
  for (let i = 0; i < jobs.length; i++) {
    const due = t0 + i * interval;
    const wait = due - Date.now();
    if (wait > 1) await sleep(wait);
    while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    maxLag = Math.max(maxLag, Date.now() - due);
    const p: Promise<unknown> = peer
      .submitOne(jobs[i]!)
      .catch((error) => {
        failure = error;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  return { sendSeconds: (Date.now() - t0) / 1000, maxLagMs: maxLag };
}

export async function mixedOnce(peer: Peer, ratePerSecond: number, seconds: number): Promise<MixedResult> {
  const warmUp = mixedJobs(Math.round(ratePerSecond * WARM_UP_SECONDS), 7, "warm");
  const jobs = mixedJobs(Math.round(ratePerSecond * seconds));
  await peer.setup();
  try {
    await peer.startWorkers(MIXED_SLOTS);
    await sleep(1_000);
    await sendAtRate(peer, warmUp, ratePerSecond);
    await peer.waitDone(warmUp.length, 120_000);
    const measuredFrom = Date.now();
    const { sendSeconds, maxLagMs } = await sendAtRate(peer, jobs, ratePerSecond);
    await peer.waitDone(warmUp.length + jobs.length, 120_000);
    // Every warm-up run was enqueued (and had ended) before the measured ones were sent.
    const waits = (await peer.timings())
      .filter((t) => t.enqueuedAt >= measuredFrom)
      .map((t) => t.startedAt - t.enqueuedAt);
    if (waits.length !== jobs.length)
      throw new Error(`${peer.id}: ${waits.length} measured runs completed, ${jobs.length} sent`);
    const result = {
      runs: jobs.length,
      ratePerSecond,
      achievedRatePerSecond: round(jobs.length / sendSeconds),
      queueWaitP50Ms: round(percentile(waits, 50), 2),
      queueWaitP99Ms: round(percentile(waits, 99), 2),
      maxSendLagMs: Math.round(maxLagMs),
    };
    log(
      `  mixed ${peer.id}: queue wait p50 ${result.queueWaitP50Ms} ms, p99 ${result.queueWaitP99Ms} ms ` +
        `(${result.runs} runs at ${result.achievedRatePerSecond}/s, max send lag ${result.maxSendLagMs} ms)`,
    );
    return result;
  } finally {
    await peer.teardown();
  }
}

/** Each system's rounds by its id, in the order of the repetitions. */
type MixedRaw = Map<PeerId, MixedResult[]>;

export const mixed: Workload<MixedRaw> = {
  name: "mixed",
  alias: "c",
  measures: "queue wait of runs of 5–50 ms arriving at 200 runs/s over 1,000 sessions for 10 s",
  systems: "peers",
  writes: {
    mixed: ["unit", "ratePerSecond", "seconds", "sessions", "slots", "runDurationMs", "byPeer"],
  },
  async run({ plan, withPeer }) {
    const { ratePerSecond, seconds } = plan.mixed;
    const raw: MixedRaw = new Map();
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(`(c) mixed: ${ratePerSecond} runs/s of 5–50 ms for ${seconds} s, repetition ${rep}/${plan.reps}`);
      for (const id of plan.peers)
        add(raw, id, await withPeer(id, (p) => mixedOnce(p, ratePerSecond, seconds)));
    }
    return raw;
  },
  report(raw, plan) {
    const byPeer: Partial<Record<PeerId, Record<string, Summary>>> = {};
    for (const id of plan.peers) {
      const rs = raw.get(id)!;
      byPeer[id] = {
        queueWaitP50Ms: summarize(rs.map((r) => r.queueWaitP50Ms)),
        queueWaitP99Ms: summarize(rs.map((r) => r.queueWaitP99Ms)),
        achievedRatePerSecond: summarize(rs.map((r) => r.achievedRatePerSecond)),
        maxSendLagMs: summarize(rs.map((r) => r.maxSendLagMs)),
      };
    }
    const compared: ComparedRow[] = [];
    for (const q of ["queueWaitP50Ms", "queueWaitP99Ms"] as const)
      for (const oah of oahSystems(plan))
        for (const peer of otherSystems(plan))
          compared.push({
            figure: `mixed queue wait ${q.slice(9, 12).toLowerCase()} (ms): ${versus(oah, peer)}`,
            oah: byPeer[oah]![q]!,
            peer: byPeer[peer]![q]!,
            better: "lower",
          });
    const mixed = {
      unit: "ms, the system's enqueue stamp → its start stamp",
      ratePerSecond: plan.mixed.ratePerSecond,
      seconds: plan.mixed.seconds,
      sessions: MIXED_SESSIONS,
      slots: MIXED_SLOTS,
      runDurationMs: [5, 50],
      byPeer,
    };
    return { sections: { mixed }, compared };
  },
};
