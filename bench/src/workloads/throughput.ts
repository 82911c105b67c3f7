// (a) Throughput: sessions × runsPerSession no-op runs, all submitted in bulk
// before any worker exists, then drained by `slots` execution slots.
// runs/s = completed / (last end − first start), from the system's own timestamps.
import { log } from "../log";
import type { JobSpec, Peer } from "../peers";
import { round } from "../stats";

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
