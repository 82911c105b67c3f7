import { sql } from "drizzle-orm";
import { encodeJson, type SqlClient } from "../sql/client";
import { insertEvents } from "./insert-events";

/** The system step that records a requeue, with the data of its events as output. */
const REQUEUE_STEP = { kind: "system", name: "run.requeued", status: "completed" } as const;

/**
 * What requeues record beside the runs' rows, manual or automatic: each run's `run.requeued`
 * and `run.queued` events and a completed system step `run.requeued`, all with its `data`;
 * for many runs at once in three statements.
 */
export async function recordRequeues(
  tx: SqlClient,
  requeues: readonly { runId: string; data: Record<string, unknown> }[],
  at: number,
): Promise<void> {
  if (requeues.length === 0) return;
  await insertEvents(
    tx,
    requeues.flatMap(({ runId, data }) => [
      { runId, type: "run.requeued" as const, data },
      { runId, type: "run.queued" as const, data },
    ]),
    at,
  );
  const { kind, name, status } = REQUEUE_STEP;
  const rows = tx.rowsOf(
    2,
    requeues.map(({ runId, data }) => [runId, encodeJson(data)]),
  );
  await tx.run(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, ended_at, output)
    SELECT column1, ${kind}, ${name}, ${status}, CAST(${at} AS bigint), CAST(${at} AS bigint), ${tx.asJson(sql`column2`)}
    FROM ${rows}`);
}
