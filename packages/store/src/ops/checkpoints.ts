import type { RunCheckpoint } from "@oah/contract";
import type { OnInterrupt, ResumeRecord, StepKind } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { decodeMetadata } from "../rows";
import type { SqlClient } from "../sql/client";
import type { Claim } from "./claim";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";

/**
 * What an execution saves after a completed step (docs/spec.md §7): the executor's state then,
 * and what it adds to the run's log (an agent's new messages): a checkpoint never rewrites what
 * an earlier one logged.
 */
export interface Checkpoint {
  state: unknown;
  appended?: readonly unknown[];
}

/**
 * The step an execution was in when it died: begun after the last checkpoint and left open by it
 * (still running, or ended by recovery as `worker_recovery_failed`).
 */
export interface InterruptedStep {
  stepId: number;
  kind: StepKind;
  name: string;
  /** A command's policy; null for a step that is not a command (a model call). */
  onInterrupt: OnInterrupt | null;
}

/** Where a later attempt of a run goes on from. */
export interface Resumption {
  /** The last checkpoint's state, and the appends of every checkpoint in order. */
  state: unknown;
  log: unknown[];
  /** The last step the last checkpoint covers (null: the run had made none). */
  stepId: number | null;
  /** The attempt that wrote it. */
  attempt: number;
  interrupted: InterruptedStep | null;
  /** What going on from here does not do again: the completed steps by kind, and the model tokens they used. */
  avoided: { steps: Partial<Record<StepKind, number>>; modelTokens: number };
}

/** The fence of a checkpoint: the run is still active and still this claim's. */
const owned = (claim: Claim): SQL =>
  sql`EXISTS (SELECT 1 FROM runs WHERE id = ${claim.runId} AND claim_token = ${claim.token}
    AND status IN ('running', 'waiting_tool'))`;

/** The INSERT of a checkpoint whose values (its step's id as `stepId`) come from `source` (a SELECT's tail). */
export function insertCheckpoint(
  db: SqlClient,
  claim: Claim,
  stepId: SQL,
  checkpoint: Checkpoint,
  at: number,
  source: SQL,
): SQL {
  return sql`INSERT INTO run_checkpoints (run_id, step_id, attempt, at, state, appended)
    SELECT ${claim.runId}, ${stepId}, (SELECT attempt FROM runs WHERE id = ${claim.runId}), CAST(${at} AS BIGINT),
      ${db.json(checkpoint.state ?? null)}, ${db.json(checkpoint.appended?.length ? checkpoint.appended : null)}
    ${source}`;
}

/**
 * A checkpoint written on its own (after a step without a row: a sleep, an output; at a held
 * wait), covering the run's steps so far; false when fenced out.
 */
export async function saveCheckpoint(ctx: OpContext, claim: Claim, checkpoint: Checkpoint): Promise<boolean> {
  const { db } = ctx;
  const lastStep = sql`(SELECT max(id) FROM run_steps WHERE run_id = ${claim.runId} AND kind <> 'system')`;
  const changed = await db.run(
    insertCheckpoint(db, claim, lastStep, checkpoint, ctx.now(), sql`WHERE ${owned(claim)}`),
  );
  return changed === 1;
}

export interface CheckpointRow {
  id: number | string;
  step_id: number | string | null;
  attempt: number;
  at: number | string;
  state: unknown;
  appended: unknown;
}

/** A run's checkpoints in order, the last one's state, and the log: every checkpoint's appends in order; null for none. */
export async function readLog(
  db: SqlClient,
  runId: string,
): Promise<{ rows: CheckpointRow[]; state: unknown; log: unknown[] } | null> {
  const rows = await db.all<CheckpointRow>(sql`SELECT id, step_id, attempt, at, state, appended
    FROM run_checkpoints WHERE run_id = ${runId} ORDER BY id`);
  const last = rows.at(-1);
  if (!last) return null;
  const log = rows.flatMap((r) => (db.decodeJson(r.appended) as unknown[] | null) ?? []);
  return { rows, state: db.decodeJson(last.state), log };
}

/**
 * Where the next attempt of a run goes on from: its last checkpoint, the log of all of them, the
 * step in flight when the last execution died, and what resuming does not do again; null when
 * the run has no checkpoint.
 */
export async function readResumption({ db }: OpContext, runId: string): Promise<Resumption | null> {
  const read = await readLog(db, runId);
  if (!read) return null;
  const { rows, log } = read;
  const last = rows.at(-1)!;
  const stepId = last.step_id === null ? null : Number(last.step_id);
  // The steps done when it was written, and the one begun since: a later execution's system
  // steps (a requeue's record) are not an execution's steps. A fork's inherited checkpoints
  // cover steps of the runs it comes from (fork-run.ts), which it does not do again either.
  const lineage = await lineageOf(db, runId);
  const steps = await db.all<{
    id: number | string;
    run_id: string;
    kind: StepKind;
    name: string;
    status: string;
    error_code: string | null;
    on_interrupt: OnInterrupt | null;
    tokens: number | string | null;
  }>(sql`SELECT id, run_id, kind, name, status, error_code, on_interrupt, ${modelTokens(db)} AS tokens
    FROM run_steps WHERE run_id IN (${sql.join(
      lineage.map((id) => sql`${id}`),
      sql`, `,
    )}) AND kind <> 'system' ORDER BY id`);
  const checkpointedStep = stepId ?? 0;
  // Of each run of the lineage, the steps up to the last one a checkpoint covers.
  const covered = new Set(rows.map((r) => (r.step_id === null ? null : Number(r.step_id))));
  const coveredUpTo = new Map<string, number>();
  for (const s of steps)
    if (covered.has(Number(s.id)))
      coveredUpTo.set(s.run_id, Math.max(coveredUpTo.get(s.run_id) ?? 0, Number(s.id)));
  const done = steps.filter(
    (s) => Number(s.id) <= (coveredUpTo.get(s.run_id) ?? 0) && s.status === "completed",
  );
  const begun = steps.findLast(
    (s) =>
      s.run_id === runId &&
      Number(s.id) > checkpointedStep &&
      (s.status === "running" || s.error_code === "worker_recovery_failed"),
  );
  const avoided: Resumption["avoided"] = { steps: {}, modelTokens: 0 };
  for (const s of done) {
    avoided.steps[s.kind] = (avoided.steps[s.kind] ?? 0) + 1;
    avoided.modelTokens += Number(s.tokens ?? 0);
  }
  return {
    state: read.state,
    log,
    stepId,
    attempt: last.attempt,
    interrupted: begun
      ? { stepId: Number(begun.id), kind: begun.kind, name: begun.name, onInterrupt: begun.on_interrupt }
      : null,
    avoided,
  };
}

/**
 * An attempt goes on from the run's last checkpoint: its `run.resumed` event (with `data`) and
 * the run's `metadata.resumed`, together and fenced by the claim; false when fenced out.
 */
export async function recordResume(
  ctx: OpContext,
  claim: Claim,
  record: ResumeRecord,
  data: Record<string, unknown>,
): Promise<boolean> {
  const now = ctx.now();
  const sessionId = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.all<{ session_id: string; metadata: unknown }>(sql`
      SELECT session_id, metadata FROM runs WHERE id = ${claim.runId} AND claim_token = ${claim.token}
        AND status IN ('running', 'waiting_tool') ${tx.forUpdate}`);
    if (!row) return null;
    const metadata = { ...decodeMetadata(row, tx), resumed: record };
    await tx.run(
      sql`UPDATE runs SET metadata = ${tx.json(metadata)}, updated_at = ${now} WHERE id = ${claim.runId}`,
    );
    await insertEvent(tx, claim.runId, "run.resumed", now, data);
    return row.session_id;
  });
  if (sessionId === null) return false;
  ctx.wrote([sessionId]);
  return true;
}

/** The run and the runs it was forked from, nearest first. */
async function lineageOf(db: SqlClient, runId: string): Promise<string[]> {
  const lineage = [runId];
  for (;;) {
    const [row] = await db.all<{ forked_from: string | null }>(
      sql`SELECT forked_from FROM runs WHERE id = ${lineage.at(-1)!}`,
    );
    if (!row?.forked_from || lineage.includes(row.forked_from)) return lineage;
    lineage.push(row.forked_from);
  }
}

/** A model step's total tokens, as the step's output records its usage. */
const modelTokens = (db: SqlClient): SQL =>
  db.dialect === "postgres"
    ? sql`CASE WHEN kind = 'model' THEN CAST(output -> 'usage' ->> 'totalTokens' AS bigint) END`
    : sql`CASE WHEN kind = 'model' THEN json_extract(output, '$.usage.totalTokens') END`;

/** A run's checkpoints, oldest first, without what they hold. */
export async function listCheckpoints({ db }: OpContext, runId: string): Promise<RunCheckpoint[]> {
  const rows =
    await db.all<CheckpointRow>(sql`SELECT id, step_id, attempt, at, NULL AS state, NULL AS appended
    FROM run_checkpoints WHERE run_id = ${runId} ORDER BY id`);
  return rows.map((r) => ({
    id: Number(r.id),
    stepId: r.step_id === null ? null : Number(r.step_id),
    attempt: r.attempt,
    at: new Date(Number(r.at)).toISOString(),
  }));
}
