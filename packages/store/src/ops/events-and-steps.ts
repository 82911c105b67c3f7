import type { OnInterrupt, RunEventType, StepKind } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { ACTIVE } from "../sql-fragments";
import { type Checkpoint, insertCheckpoint } from "./checkpoints";
import type { Claim } from "./claim";
import type { OpContext } from "./context";
import { countModelCall, type ModelCallUsage } from "./model-usage";

export interface StepStart {
  kind: StepKind;
  name: string;
  at?: number;
  /** A command's: what recovery does if its execution dies while it runs (docs/spec.md §7). */
  onInterrupt?: OnInterrupt;
}

export interface StepEnd {
  status: "completed" | "failed";
  output?: unknown;
  errorCode?: string | null;
  errorMessage?: string | null;
  /** A model call's: what it spent, counted to its run's workspace for the hour it ended. */
  usage?: ModelCallUsage;
}

/** The fence every execution write passes: the run is still active and still this claim's. */
function owns(claim: Claim): SQL {
  return sql`EXISTS (SELECT 1 FROM runs WHERE id = ${claim.runId} AND claim_token = ${claim.token}
    AND status IN (${ACTIVE}))`;
}

/** An event of the run, written while the claim still owns it; false when fenced out. */
export async function appendEvent(
  ctx: OpContext,
  claim: Claim,
  type: RunEventType,
  data?: Record<string, unknown>,
): Promise<boolean> {
  const { db } = ctx;
  // The run's session comes back with the row, for the announcement: no read of its own.
  const [row] = await db.all<{ session_id: string }>(sql`INSERT INTO run_events (run_id, type, at, data)
    SELECT ${claim.runId}, ${type}, CAST(${ctx.now()} AS BIGINT), ${db.json(data)} WHERE ${owns(claim)}
    RETURNING (SELECT session_id FROM runs WHERE runs.id = run_events.run_id) AS session_id`);
  if (!row) return false;
  ctx.wrote([row.session_id]);
  return true;
}

export async function startStep(
  { db, now }: OpContext,
  claim: Claim,
  step: StepStart,
): Promise<number | null> {
  const [row] = await db.all<{
    id: number;
  }>(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, on_interrupt)
    SELECT ${claim.runId}, ${step.kind}, ${step.name}, 'running', CAST(${step.at ?? now()} AS BIGINT),
      ${step.onInterrupt ?? null}
    WHERE ${owns(claim)} RETURNING id`);
  return row?.id ?? null;
}

/** The output so far of a step still running. */
export async function updateStepOutput(
  { db }: OpContext,
  claim: Claim,
  stepId: number,
  output: unknown,
): Promise<boolean> {
  const changed = await db.run(sql`UPDATE run_steps SET output = ${db.json(output)}
    WHERE id = ${stepId} AND run_id = ${claim.runId} AND status = 'running' AND ${owns(claim)}`);
  return changed === 1;
}

/**
 * Ends a step; with a checkpoint, saves it with the step's end (docs/spec.md §7): one statement on
 * PostgreSQL, one transaction on SQLite, both fenced by the claim. False when fenced out.
 */
export async function finishStep(
  { db, now }: OpContext,
  claim: Claim,
  stepId: number,
  end: StepEnd,
  checkpoint?: Checkpoint,
): Promise<boolean> {
  const at = now();
  const ending = sql`UPDATE run_steps SET status = ${end.status}, ended_at = ${at},
      output = ${db.json(end.output)}, error_code = ${end.errorCode ?? null},
      error_message = ${end.errorMessage ?? null}
    WHERE id = ${stepId} AND run_id = ${claim.runId} AND ${owns(claim)}`;
  const { usage } = end;
  if (!checkpoint && !usage) return (await db.run(ending)) === 1;
  if (db.dialect === "postgres") {
    // One statement: the end, then what comes with it, written only if the end was.
    const counted = usage ? sql`, counted AS (${countModelCall(claim, usage, at, sql`FROM ended`)})` : sql``;
    const saved = checkpoint
      ? sql`${insertCheckpoint(db, claim, sql`ended.id`, checkpoint, at, sql`FROM ended`)} RETURNING 1`
      : sql`SELECT 1 FROM ended`;
    return (await db.all(sql`WITH ended AS (${ending} RETURNING id)${counted} ${saved}`)).length === 1;
  }
  return db.transaction(async (tx) => {
    if ((await tx.run(ending)) !== 1) return false;
    // SQLite reads ON CONFLICT after a bare SELECT as a join's ON: the WHERE ends the SELECT.
    if (usage) await tx.run(countModelCall(claim, usage, at, sql`WHERE true`));
    if (checkpoint) await tx.run(insertCheckpoint(tx, claim, sql`${stepId}`, checkpoint, at, sql``));
    return true;
  });
}
