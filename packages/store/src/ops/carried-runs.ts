import { INTERRUPTED_STATUSES, type RunStatus } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import type { SqlClient } from "../sql/client";
import { readLog } from "./checkpoints";
import type { OpContext } from "./context";

/**
 * A run whose conversation a later run of its session goes on from (docs/spec.md §12, *The
 * agent executor*): how it ended, its output, and, when it did not complete, what its
 * checkpoints hold (its last state, and the log of all of them in order).
 */
export interface CarriedRun {
  id: string;
  status: RunStatus;
  errorCode: string | null;
  errorMessage: string | null;
  output: unknown;
  /** Null for a completed run, whose output is what it leaves. */
  checkpoints: { state: unknown; log: unknown[] } | null;
}

interface CarriedRow {
  id: string;
  status: RunStatus;
  error_code: string | null;
  error_message: string | null;
  output: unknown;
}

const INTERRUPTED = sql.join(
  INTERRUPTED_STATUSES.map((s) => sql`${s}`),
  sql`, `,
);

async function carriedOf(db: SqlClient, where: SQL): Promise<CarriedRun | null> {
  const [row] = await db.all<CarriedRow>(sql`SELECT id, status, error_code, error_message, output
    FROM runs ${where}`);
  if (!row) return null;
  const completed = row.status === "completed";
  const checkpoints = completed ? null : await readLog(db, row.id);
  return {
    id: row.id,
    status: row.status,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    output: completed ? (db.decodeJson(row.output) ?? null) : null,
    checkpoints: checkpoints && { state: checkpoints.state, log: checkpoints.log },
  };
}

/**
 * The run of `executor` a run at position `beforeSeq` of the session goes on from: the latest
 * before it that completed, or that was cut short (cancelled, timed out) after a checkpoint.
 */
export function previousRun(
  { db }: OpContext,
  sessionId: string,
  beforeSeq: number,
  executor: string,
): Promise<CarriedRun | null> {
  return carriedOf(
    db,
    sql`WHERE session_id = ${sessionId} AND seq < ${beforeSeq} AND executor = ${executor}
      AND (status = 'completed' OR (status IN (${INTERRUPTED})
        AND EXISTS (SELECT 1 FROM run_checkpoints WHERE run_id = runs.id)))
    ORDER BY seq DESC LIMIT 1`,
  );
}

/** A run of the session that a conversation carried by reference names; null when there is none. */
export function carriedRun({ db }: OpContext, sessionId: string, runId: string): Promise<CarriedRun | null> {
  return carriedOf(db, sql`WHERE id = ${runId} AND session_id = ${sessionId}`);
}
