// (i) Submission over HTTP, Redis + PostgreSQL: an `oah-api --api-only` with no worker takes
// `singles` single submissions from `clients` concurrent clients (over 500 sessions), then
// `batched` runs in batches of `batchSize` (POST /api/v1/runs/batch) from `batchClients`
// clients. Runs/s = runs accepted / wall time of each phase, as a client sees it.
import { log } from "../log";
import { inParallel, postJson, submitJob } from "../peers/oah-client";
import { round } from "../stats";
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
