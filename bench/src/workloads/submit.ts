// (i) Submission over HTTP, Redis + PostgreSQL: an `oah-api --api-only` with no worker takes
// `singles` single submissions from `clients` concurrent clients (over 500 sessions), then
// `batched` runs in batches of `batchSize` (POST /api/v1/runs/batch) from `batchClients`
// clients. Runs/s = runs accepted / wall time of each phase, as a client sees it.
import { log } from "../log";
import { inParallel, postJson, submitJob } from "../peers/oah-client";
import { round, summarize } from "../stats";
import { type Workload, withSplit } from "../workload";
import type { WithSplit } from "./parked";

export interface SubmitShape {
  singles: number;
  clients: number;
  batched: number;
  batchSize: number;
  batchClients: number;
}

export interface SubmitRound {
  singlePerSec: number;
  batchedPerSec: number;
}

const SESSIONS = 500;

async function timed(task: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

export async function submitOnce(withSplit: WithSplit, shape: SubmitShape): Promise<SubmitRound> {
  return withSplit(async (peer) => {
    await peer.setup();
    try {
      await peer.startApiOnly();
      const url = peer.apiUrl();
      // Warm: connections open, statements prepared.
      await inParallel(200, shape.clients, async (i) => {
        await submitJob(url, { sessionId: `warm-${i % SESSIONS}`, sleepMs: 0 });
      });
      const singleSeconds = await timed(() =>
        inParallel(shape.singles, shape.clients, async (i) => {
          await submitJob(url, { sessionId: `single-${i % SESSIONS}`, sleepMs: 0 });
        }),
      );
      const batches = Math.ceil(shape.batched / shape.batchSize);
      const batchedSeconds = await timed(() =>
        inParallel(batches, shape.batchClients, async (b) => {
          const runs = Array.from({ length: shape.batchSize }, (_, k) => ({
            sessionId: `batch-${(b * shape.batchSize + k) % SESSIONS}`,
            input: { steps: [] },
          }));
          const res = await postJson(url, "/api/v1/runs/batch", { runs });
          if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${JSON.stringify(res.body)}`);
        }),
      );
      const result = {
        singlePerSec: round(shape.singles / singleSeconds),
        batchedPerSec: round((batches * shape.batchSize) / batchedSeconds),
      };
      log(
        `  submit: ${result.singlePerSec} single submits/s (${shape.clients} clients), ` +
          `${result.batchedPerSec} runs/s in batches of ${shape.batchSize}`,
      );
      return result;
    } finally {
      await peer.teardown();
    }
  });
}

export const submit: Workload<SubmitRound[]> = {
  name: "submit",
  alias: "i",
  measures: "submissions over HTTP: single ones from 64 clients, and in batches of 1,000",
  systems: { own: "oah split, oah-api --api-only on Redis + PostgreSQL with no worker" },
  writes: {
    submit: ["unit", "shape", "singlePerSec", "batchedPerSec", "single", "batched"],
  },
  async run(context) {
    const { plan } = context;
    const shape = plan.submit;
    const rounds: SubmitRound[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(i) ${shape.singles} single submissions from ${shape.clients} clients, then ${shape.batched} runs in ` +
          `batches of ${shape.batchSize}, repetition ${rep}/${plan.reps}`,
      );
      rounds.push(await submitOnce(withSplit(context), shape));
    }
    return rounds;
  },
  report(rounds, plan) {
    const shape = plan.submit;
    const single = summarize(rounds.map((r) => r.singlePerSec));
    const batched = summarize(rounds.map((r) => r.batchedPerSec));
    const submit = {
      unit: "runs accepted per second, as the clients see it; oah-api --api-only on Redis + PostgreSQL, no worker",
      shape,
      singlePerSec: single.median,
      batchedPerSec: batched.median,
      single,
      batched,
    };
    return {
      sections: { submit },
      absolute: [
        {
          figure: `single submissions over HTTP, ${shape.clients} clients, Redis+PG (runs/s)`,
          value: single,
        },
        {
          figure: `batched submissions over HTTP, ${shape.batchSize} a batch, Redis+PG (runs/s)`,
          value: batched,
        },
      ],
    };
  },
};
