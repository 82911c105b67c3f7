import { sql } from "drizzle-orm";
import { REQUEUE_STEP } from "../run-writes";
import type { SqlClient } from "../sql/client";
import { insertEvents } from "./insert-events";

/**
 * What a requeue records beside the run's row, manual or automatic: its `run.requeued`
 * and `run.queued` events and a completed system step `run.requeued`, all with `data`.
 */
export async function recordRequeue(
  tx: SqlClient,
  runId: string,
  data: Record<string, unknown>,
  at: number,
): Promise<void> {
  await insertEvents(
    tx,
    [
      { runId, type: "run.requeued", data },
      { runId, type: "run.queued", data },
    ],
    at,
  );
  const { kind, name, status } = REQUEUE_STEP;
  await tx.run(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, ended_at, output)
    VALUES (${runId}, ${kind}, ${name}, ${status}, ${at}, ${at}, ${tx.json(data)})`);
}
