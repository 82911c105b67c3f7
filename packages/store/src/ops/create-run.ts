import type { Run } from "@oah/contract";
import type { QueueEntry } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { decodeRun, entryOf, type RunRow } from "../rows";
import type { NewRun } from "../run-store";
import { encodeJson, Rollback, type SqlClient } from "../sql/client";
import { runColumns } from "../sql-fragments";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";

export interface CreatedRun {
  run: Run;
  created: boolean;
  queueEntry: QueueEntry;
}

/** A submission: the run numbered in its session, queued, with its run.queued event. */
export async function createRun(ctx: OpContext, input: NewRun): Promise<CreatedRun> {
  const { db } = ctx;
  const now = ctx.now();
  // The upsert takes the session's row lock: submissions to one session are numbered one at a time.
  const numberSubmission = sql`INSERT INTO sessions (id, last_seq, created_at, updated_at)
    VALUES (${input.sessionId}, 1, ${now}, ${now})
    ON CONFLICT (id) DO UPDATE SET last_seq = sessions.last_seq + 1, updated_at = excluded.updated_at
    RETURNING last_seq`;
  const insertRun = (tx: SqlClient, seq: SQL, from: SQL) => sql`
    INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, parent_run_id, priority, executor, input,
      status, created_at, enqueued_at, timeout_ms, attempt, metadata, idempotency_key, updated_at)
    SELECT ${input.id}, ${input.sessionId}, ${seq}, ${seq}, ${input.workspaceId}, ${input.parentRunId},
      ${input.priority}, ${input.executor}, ${tx.asJson(sql`${encodeJson(input.input ?? null)}`)}, 'queued', ${now},
      ${now}, ${input.timeoutMs}, 0, ${tx.asJson(sql`'{}'`)}, ${input.idempotencyKey}, ${now} ${from}
    RETURNING ${runColumns}`;
  const created = (row: RunRow): CreatedRun => ({
    run: decodeRun(row, db),
    created: true,
    queueEntry: entryOf(row),
  });
  if (db.dialect === "postgres" && input.idempotencyKey === null) {
    // The common case in one statement: one round trip and one commit per submission.
    const [row] = await db.all<RunRow>(
      sql`WITH numbered AS (${numberSubmission}),
        inserted AS (${insertRun(db, sql`numbered.last_seq`, sql`FROM numbered`)}),
        queued AS (INSERT INTO run_events (run_id, type, at, data)
          SELECT id, 'run.queued', CAST(${now} AS bigint), jsonb_build_object('seq', seq, 'priority', priority)
          FROM inserted)
        SELECT ${runColumns} FROM inserted`,
      "create_run",
    );
    ctx.noteCountedWrite();
    return created(row!);
  }
  return db.transaction(async (tx) => {
    const [session] = await tx.all<{ last_seq: number }>(numberSubmission, "number_submission");
    if (input.idempotencyKey !== null) {
      const [existing] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
        WHERE session_id = ${input.sessionId} AND idempotency_key = ${input.idempotencyKey}`);
      if (existing) throw new Rollback({ ...created(existing), created: false });
    }
    const seq = session!.last_seq;
    const [row] = await tx.all<RunRow>(insertRun(tx, sql`${seq}`, sql``), "insert_run");
    await insertEvent(tx, input.id, "run.queued", now, { seq, priority: input.priority });
    ctx.noteCountedWrite();
    return created(row!);
  });
}
