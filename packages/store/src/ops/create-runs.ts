import { type Run, sameSubmission } from "@oah/contract";
import { OahError, type QueueEntry } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, entryOf, type RunRow } from "../rows";
import type { NewRun, SubmissionOutcome } from "../run-store";
import { encodeJson, type SqlClient } from "../sql/client";
import { runColumns } from "../sql-fragments";
import type { OpContext } from "./context";
import { insertEvents } from "./insert-events";
import { takePositions } from "./session-positions";

export interface CreatedRun {
  run: Run;
  created: boolean;
  queueEntry: QueueEntry;
}

/** A run's submitted fields as text columns, in the order of the statements below. */
const columnsOf = (r: NewRun) => [
  r.id,
  r.sessionId,
  r.workspaceId,
  r.parentRunId,
  r.priority,
  r.executor,
  encodeJson(r.input ?? null),
  String(r.timeoutMs),
];

/**
 * Submissions without idempotency keys, numbered in their sessions in the order given, queued
 * with their run.queued events: one statement on PostgreSQL, whatever the number of runs and
 * sessions (its text is the same for any batch: one plan). The sessions' counters are taken in
 * id order, so that two batches of the same sessions never wait for each other in a cycle.
 */
export async function insertRunsStatement(ctx: OpContext, runs: readonly NewRun[]): Promise<RunRow[]> {
  const { db } = ctx;
  const now = ctx.now();
  const rows = await db.all<RunRow>(
    sql`WITH input AS (
        SELECT CAST(column1 AS integer) AS ord, column2 AS id, column3 AS session_id, column4 AS workspace_id,
          column5 AS parent_run_id, column6 AS priority, column7 AS executor, column8 AS input,
          CAST(column9 AS integer) AS timeout_ms
        FROM ${db.rowsOf(
          9,
          runs.map((r, i) => [String(i), ...columnsOf(r)]),
        )}),
      counts AS (SELECT session_id, CAST(count(*) AS integer) AS k FROM input GROUP BY session_id),
      numbered AS (INSERT INTO sessions (id, last_seq, created_at, updated_at)
        SELECT session_id, k, CAST(${now} AS bigint), CAST(${now} AS bigint) FROM counts ORDER BY session_id
        ON CONFLICT (id) DO UPDATE SET last_seq = sessions.last_seq + excluded.last_seq,
          updated_at = excluded.updated_at
        RETURNING id, last_seq),
      positioned AS (SELECT input.*, numbered.last_seq - counts.k
          + CAST(row_number() OVER (PARTITION BY input.session_id ORDER BY input.ord) AS integer) AS seq
        FROM input JOIN counts USING (session_id) JOIN numbered ON numbered.id = input.session_id),
      inserted AS (INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, parent_run_id, priority,
          executor, input, status, created_at, enqueued_at, timeout_ms, attempt, metadata, idempotency_key, updated_at)
        SELECT id, session_id, seq, seq, workspace_id, parent_run_id, priority, executor, CAST(input AS jsonb),
          'queued', CAST(${now} AS bigint), CAST(${now} AS bigint), timeout_ms, 0, CAST('{}' AS jsonb), NULL,
          CAST(${now} AS bigint)
        FROM positioned
        RETURNING ${runColumns}),
      queued AS (INSERT INTO run_events (run_id, type, at, data)
        SELECT id, 'run.queued', CAST(${now} AS bigint), jsonb_build_object('seq', seq, 'priority', priority)
        FROM inserted ORDER BY session_id, seq)
      SELECT ${runColumns} FROM inserted`,
    "insert_runs",
  );
  ctx.noteCountedWrite();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return runs.map((r) => byId.get(r.id)!);
}

/** What became of one submission: its run, made now or earlier; `same` false when its key was used for another body. */
interface Submitted {
  row: RunRow;
  created: boolean;
  same: boolean;
}

/**
 * Submissions in one transaction, any of them with idempotency keys, on either database. A key
 * already used in its session (before, or earlier in the batch) answers with the run it made, or
 * as a conflict when the body differs; `atomic`, one conflict writes nothing at all (the batch is
 * refused with `idempotency_key_conflict`).
 */
async function submitRuns(
  ctx: OpContext,
  runs: readonly NewRun[],
  { atomic }: { atomic: boolean },
): Promise<Submitted[]> {
  const { db } = ctx;
  if (db.dialect === "postgres" && runs.every((r) => r.idempotencyKey === null))
    return (await insertRunsStatement(ctx, runs)).map((row) => ({ row, created: true, same: true }));
  return db.transaction(async (tx) => {
    const now = ctx.now();
    const keyOf = (sessionId: string, key: string) => JSON.stringify([sessionId, key]);
    // The sessions' rows first, in id order, locked (made when new, their counters untouched): a
    // submission with the same key elsewhere commits before the keys are looked up, or after.
    const sessions = [...new Set(runs.map((r) => r.sessionId))].sort();
    await tx.all(sql`INSERT INTO sessions (id, last_seq, created_at, updated_at)
      SELECT column1, 0, ${now}, ${now} FROM ${tx.rowsOf(
        1,
        sessions.map((id) => [id]),
      )} WHERE true ORDER BY column1
      ON CONFLICT (id) DO UPDATE SET updated_at = sessions.updated_at RETURNING id`);
    const keyed = runs.filter((r) => r.idempotencyKey !== null);
    const earlier = new Map<string, RunRow | NewRun>();
    if (keyed.length > 0) {
      const found = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
        WHERE (session_id, idempotency_key) IN (SELECT column1, column2 FROM ${tx.rowsOf(
          2,
          keyed.map((r) => [r.sessionId, r.idempotencyKey]),
        )})`);
      for (const row of found) earlier.set(keyOf(row.session_id, row.idempotency_key!), row);
    }
    const plan: ({ make: NewRun } | { repeat: RunRow | NewRun; asked: NewRun })[] = runs.map((r) => {
      const key = r.idempotencyKey === null ? null : keyOf(r.sessionId, r.idempotencyKey);
      const before = key === null ? undefined : earlier.get(key);
      if (before) return { repeat: before, asked: r };
      if (key !== null) earlier.set(key, r);
      return { make: r };
    });
    const made = new Map<string, RunRow>();
    const toMake = plan.flatMap((p) => ("make" in p ? [p.make] : []));
    if (toMake.length > 0) {
      const seqs = await takePositions(
        tx,
        toMake.map((r) => r.sessionId),
        now,
      );
      const rows = toMake.map((r, i) => [...columnsOf(r), String(seqs[i]), r.idempotencyKey]);
      const inserted =
        await tx.all<RunRow>(sql`INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id,
          parent_run_id, priority, executor, input, status, created_at, enqueued_at, timeout_ms, attempt, metadata,
          idempotency_key, updated_at)
        SELECT column1, column2, CAST(column9 AS integer), CAST(column9 AS integer), column3, column4, column5,
          column6, ${tx.asJson(sql`column7`)}, 'queued', ${now}, ${now}, CAST(column8 AS integer), 0,
          ${tx.asJson(sql`'{}'`)}, column10, ${now}
        FROM ${tx.rowsOf(10, rows)} WHERE true
        RETURNING ${runColumns}`);
      for (const row of inserted) made.set(row.id, row);
      await insertEvents(
        tx,
        toMake.map((r) => {
          const row = made.get(r.id)!;
          return { runId: r.id, type: "run.queued", data: { seq: row.seq, priority: row.priority } };
        }),
        now,
      );
      ctx.noteCountedWrite();
    }
    const outcomes = plan.map((p): Submitted => {
      if ("make" in p) return { row: made.get(p.make.id)!, created: true, same: true };
      const row = "session_id" in p.repeat ? p.repeat : made.get(p.repeat.id)!;
      return { row, created: false, same: sameSubmission(decodeRun(row, tx), p.asked) };
    });
    if (atomic && outcomes.some((o) => !o.same))
      throw batchConflict(
        outcomes.flatMap((o, index) => (o.same ? [] : [{ index, run: decodeRun(o.row, tx) }])),
      );
    return outcomes;
  });
}

/** An atomic batch refused, nothing written: which of its submissions reuse a key for another body. */
export function batchConflict(conflicts: readonly { index: number; run: Run }[]): OahError {
  const each = conflicts.map(
    ({ index, run }) =>
      `runs[${index}] reuses the idempotencyKey of ${run.id} in session ${run.sessionId} with another body`,
  );
  return new OahError("idempotency_key_conflict", `nothing was submitted: ${each.join("; ")}`);
}

/** A batch of submissions (docs/spec.md §12): each one's run, or its key's conflict. */
export async function createRuns(
  ctx: OpContext,
  runs: readonly NewRun[],
  options: { atomic: boolean },
): Promise<SubmissionOutcome[]> {
  return (await submitRuns(ctx, runs, options)).map(({ row, created, same }) =>
    same
      ? { run: decodeRun(row, ctx.db), created, queueEntry: entryOf(row) }
      : { conflict: decodeRun(row, ctx.db) },
  );
}

/**
 * One submission: its run, made now, or made earlier by its idempotency key (whatever its
 * body: the caller tells a repeat from a conflict).
 */
export async function createRun(ctx: OpContext, run: NewRun): Promise<CreatedRun> {
  const [{ row, created }] = (await submitRuns(ctx, [run], { atomic: false })) as [Submitted];
  return { run: decodeRun(row, ctx.db), created, queueEntry: entryOf(row) };
}

/** Rows of runs made by insertRunsStatement, as submissions' answers. */
export function createdRuns(rows: readonly RunRow[], db: SqlClient): CreatedRun[] {
  return rows.map((row) => ({ run: decodeRun(row, db), created: true, queueEntry: entryOf(row) }));
}
