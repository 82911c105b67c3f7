// (k) Bulk action beside the workers: sessions × runsPerSession no-op runs drained by one
// oah-sandbox of `slots` slots (split, Redis + PostgreSQL) while a bulk requeue by filter
// works through `quarantined` dead letters at the default rate, and alone (the same dead
// letters in the store, no job). The workers' throughput is every run they complete per
// second while the measured runs drain, requeued ones included: what the job's writes
// leave them of the store.
import { loadRuns, waitFor } from "@oah/testing";
import pg from "pg";
import { log } from "../log";
import type { OahSplit } from "../peers/oah-split";
import { round, summarize } from "../stats";
import { type Workload, withSplit } from "../workload";
import type { WithSplit } from "./parked";
import { bulkJobs } from "./throughput";

export interface BulkShape {
  quarantined: number;
  sessions: number;
  runsPerSession: number;
  slots: number;
}

export interface BulkRound {
  runsPerSecondAlone: number;
  runsPerSecondBesideJob: number;
  /** Runs the job had acted on when the measured runs were drained. */
  jobDoneDuringDrain: number;
}

const WORKSPACE = "bench-dead-letters";

/** Every run completed per second between the first start and the last end of the measured runs. */
async function workersThroughput(url: string, measured: number): Promise<{ runsPerSecond: number }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await waitFor(
      "the measured runs to complete",
      async () => {
        const { rows } = await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM runs WHERE session_id LIKE 'tp-%' AND status = 'completed'",
        );
        return Number(rows[0]!.n) >= measured || undefined;
      },
      600_000,
      200,
    );
    const { rows } = await db.query<{ first: string; last: string }>(
      "SELECT min(started_at) AS first, max(ended_at) AS last FROM runs WHERE session_id LIKE 'tp-%'",
    );
    const first = Number(rows[0]!.first);
    const last = Number(rows[0]!.last);
    const done = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM runs WHERE status = 'completed' AND ended_at BETWEEN $1 AND $2",
      [first, last],
    );
    return { runsPerSecond: round(Number(done.rows[0]!.n) / Math.max(0.001, (last - first) / 1000)) };
  } finally {
    await db.end();
  }
}

async function drain(peer: OahSplit, shape: BulkShape, withJob: boolean) {
  const measured = bulkJobs(shape.sessions, shape.runsPerSession, "tp");
  await peer.setup();
  try {
    await peer.submitBulk(measured);
    await loadRuns({ databaseUrl: peer.databaseUrl() }, WORKSPACE, { quarantined: shape.quarantined });
    let jobId: string | undefined;
    if (withJob) {
      const response = await fetch(`${peer.apiUrl()}/api/v1/bulk-actions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ action: "requeue", filter: { workspaceId: WORKSPACE } }),
      });
      if (response.status !== 202)
        throw new Error(`bulk action: ${response.status} ${await response.text()}`);
      jobId = ((await response.json()) as { job: { id: string } }).job.id;
    }
    await peer.startWorkers(shape.slots);
    const { runsPerSecond } = await workersThroughput(peer.databaseUrl(), measured.length);
    let done = 0;
    if (jobId) {
      const job = await fetch(`${peer.apiUrl()}/api/v1/bulk-actions/${jobId}`);
      done = ((await job.json()) as { done: number }).done;
    }
    return { runsPerSecond, done };
  } finally {
    await peer.teardown();
  }
}

export async function bulkOnce(withSplit: WithSplit, shape: BulkShape): Promise<BulkRound> {
  const alone = await withSplit((peer) => drain(peer, shape, false));
  const beside = await withSplit((peer) => drain(peer, shape, true));
  const result = {
    runsPerSecondAlone: alone.runsPerSecond,
    runsPerSecondBesideJob: beside.runsPerSecond,
    jobDoneDuringDrain: beside.done,
  };
  log(`  bulk: ${JSON.stringify(result)} (ratio ${round(beside.runsPerSecond / alone.runsPerSecond, 2)})`);
  return result;
}

export const bulk: Workload<BulkRound[]> = {
  name: "bulk",
  alias: "k",
  measures: "500×20 no-op runs while a bulk requeue works through 20,000 dead letters, and without it",
  systems: { own: "oah split, one oah-sandbox of 8 slots" },
  writes: {
    bulk: ["unit", "shape", "runsPerSecondAlone", "runsPerSecondBesideJob", "jobDoneDuringDrain", "ratio"],
  },
  async run(context) {
    const { plan } = context;
    const shape = plan.bulk;
    const rounds: BulkRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(k) ${shape.sessions}×${shape.runsPerSession} no-op runs while a bulk requeue works through ` +
          `${shape.quarantined} dead letters, ${shape.slots} slots, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await bulkOnce(withSplit(context), shape));
    }
    return rounds;
  },
  report(rounds, plan) {
    const shape = plan.bulk;
    const of = (pick: (r: BulkRound) => number) => summarize(rounds.map(pick));
    const ratio = of((r) => Math.round((r.runsPerSecondBesideJob / r.runsPerSecondAlone) * 100) / 100);
    const bulk = {
      unit: "runs/s completed by one oah-sandbox while the measured runs drain (requeued ones included); split, Redis + PostgreSQL",
      shape,
      runsPerSecondAlone: of((r) => r.runsPerSecondAlone),
      runsPerSecondBesideJob: of((r) => r.runsPerSecondBesideJob),
      jobDoneDuringDrain: of((r) => r.jobDoneDuringDrain),
      ratio,
    };
    return {
      sections: { bulk },
      absolute: [
        {
          figure: `workers' throughput while a bulk requeue of ${shape.quarantined} runs works / without it, ${shape.slots} slots (ratio)`,
          value: ratio,
        },
      ],
    };
  },
};
