import { sql } from "drizzle-orm";
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
  await tx.run(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, ended_at, output)
    VALUES (${runId}, 'system', 'run.requeued', 'completed', ${at}, ${at}, ${tx.json(data)})`);
}
