import type { RunEventType } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import type { Claim, StepEnd, StepStart } from "../run-store";
import { ACTIVE } from "../sql-fragments";
import type { OpContext } from "./context";

/** The fence every execution write passes: the run is still active and still this claim's. */
function owns(claim: Claim): SQL {
  return sql`EXISTS (SELECT 1 FROM runs WHERE id = ${claim.runId} AND claim_token = ${claim.token}
    AND status IN (${ACTIVE}))`;
}

export async function appendEvent(
  { db, now }: OpContext,
  claim: Claim,
  type: RunEventType,
  data?: Record<string, unknown>,
): Promise<boolean> {
  const changed = await db.run(sql`INSERT INTO run_events (run_id, type, at, data)
    SELECT ${claim.runId}, ${type}, CAST(${now()} AS BIGINT), ${db.json(data)} WHERE ${owns(claim)}`);
  return changed === 1;
}

export async function startStep(
  { db, now }: OpContext,
  claim: Claim,
  step: StepStart,
): Promise<number | null> {
  const [row] = await db.all<{
    id: number;
  }>(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at)
    SELECT ${claim.runId}, ${step.kind}, ${step.name}, 'running', CAST(${step.at ?? now()} AS BIGINT)
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

export async function finishStep(
  { db, now }: OpContext,
  claim: Claim,
  stepId: number,
  end: StepEnd,
): Promise<boolean> {
  const changed = await db.run(sql`UPDATE run_steps SET status = ${end.status}, ended_at = ${now()},
      output = ${db.json(end.output)}, error_code = ${end.errorCode ?? null},
      error_message = ${end.errorMessage ?? null}
    WHERE id = ${stepId} AND run_id = ${claim.runId} AND ${owns(claim)}`);
  return changed === 1;
}
