import { waitFor } from "@oah/testing";
import { inParallel, startDeployment, submitRun, unfinishedRuns } from "./oah";
import { percentile } from "./stats";

export interface DispatchResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Dispatch latency on an idle pool: one run at a time, submit → start, read
 * from the store's own timestamps (createdAt by the API, startedAt by the sandbox).
 */
export async function dispatchLatency(samples: number): Promise<DispatchResult> {
  const d = await startDeployment();
  try {
    await d.addSandbox({ OAH_WORKERS_MIN: "4", OAH_WORKERS_MAX: "4" });
    const latencies: number[] = [];
    for (let i = 0; i < samples + 10; i++) {
      const run = await submitRun(d, `dispatch-${i}`);
      const started = await waitFor(
        "the run to end",
        async () => {
          const { rows } = await d.db.query<{
            created_at: string;
            started_at: string | null;
            status: string;
          }>("SELECT created_at, started_at, status FROM runs WHERE id = $1", [run.id]);
          const row = rows[0]!;
          return row.status === "completed" ? row : undefined;
        },
        10_000,
        2,
      );
      // The first runs warm up connections and JIT.
      if (i >= 10) latencies.push(Number(started.started_at) - Number(started.created_at));
    }
    return { samples, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
  } finally {
    await d.dispose();
  }
}

export interface ThroughputResult {
  sessions: number;
  runsPerSession: number;
  slots: number;
  runsPerSecond: number;
  drainSeconds: number;
}

/**
 * Throughput: sessions × runs no-op runs submitted first (no worker yet), then
 * drained by sandboxes with `slots` workers in all; runs/s from the first start
 * to the last end, by the store's timestamps.
 */
export async function throughput(
  sessions: number,
  runsPerSession: number,
  slots: number,
): Promise<ThroughputResult> {
  const d = await startDeployment();
  try {
    await inParallel(sessions * runsPerSession, 64, async (i) => {
      await submitRun(d, `tp-${i % sessions}`);
    });
    const perSandbox = Math.min(slots, 16);
    for (let left = slots; left > 0; left -= perSandbox) {
      const n = String(Math.min(perSandbox, left));
      await d.addSandbox({ OAH_WORKERS_MIN: n, OAH_WORKERS_MAX: n });
    }
    await waitFor("the queue to drain", async () => (await unfinishedRuns(d)) === 0, 600_000, 200);
    const { rows } = await d.db.query<{ first: string; last: string; n: string }>(
      "SELECT min(started_at) AS first, max(ended_at) AS last, count(*) AS n FROM runs WHERE status = 'completed'",
    );
    const seconds = (Number(rows[0]!.last) - Number(rows[0]!.first)) / 1000;
    return {
      sessions,
      runsPerSession,
      slots,
      runsPerSecond: Number(rows[0]!.n) / seconds,
      drainSeconds: seconds,
    };
  } finally {
    await d.dispose();
  }
}
