import { type RunEventType, TERMINAL_EVENT, type TerminalStatus } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import type { RunRow } from "./rows";
import type { Claim, RunOutcome } from "./run-store";
import { encodeJson, type SqlClient } from "./sql/client";
import {
  fromStatuses,
  runColumns,
  statusOfRuns,
  summaryColumns,
  toStatus,
  UNFINISHED,
} from "./sql-fragments";

export interface StartTransition {
  kind: "start";
  claim: Claim;
  workerId: string;
}

export interface FinishTransition {
  kind: "finish";
  claim: Claim;
  outcome: RunOutcome;
}

export type Transition = StartTransition | FinishTransition;

/** The prepared statement's name of transitionStatement(). */
export const TRANSITION_STATEMENT = "transitions";

/**
 * Ends runs: every terminal status is reached from an active one (docs/spec.md §4), and
 * only by the claim that started the run. Returns the runs' summaries: the host
 * reads no more of an ended run, and a run's input can be large.
 */
export function finishStatement(db: SqlClient, finishes: FinishTransition[], now: number): SQL {
  const rows = db.rowsOf(
    6,
    finishes.map(({ claim, outcome }) => [
      claim.runId,
      claim.token,
      outcome.status,
      outcome.output === undefined ? null : encodeJson(outcome.output),
      outcome.errorCode ?? null,
      outcome.errorMessage ?? null,
    ]),
  );
  return sql`UPDATE runs SET status = v.column3, output = ${db.asJson(sql`v.column4`)}, error_code = v.column5,
      error_message = v.column6, ended_at = ${now}, updated_at = ${now}
    FROM ${rows}
    WHERE runs.id = v.column1 AND runs.claim_token = v.column2 AND ${statusOfRuns} IN (${fromStatuses("finish")})
    RETURNING ${summaryColumns}`;
}

/**
 * Starts runs. Only the first unfinished run of a session may start: the store
 * itself keeps each session serial and in order, whatever a queue or a lock may
 * have got wrong; and only from `queued`, so never twice at once.
 */
export function startStatement(db: SqlClient, starts: StartTransition[], now: number): SQL {
  const rows = db.rowsOf(
    3,
    starts.map(({ claim, workerId }) => [claim.runId, claim.token, workerId]),
  );
  return sql`UPDATE runs SET status = ${toStatus("start")}, started_at = ${now}, heartbeat_at = ${now}, ended_at = NULL,
      worker_id = v.column3, claim_token = v.column2, attempt = attempt + 1, updated_at = ${now}
    FROM ${rows}
    WHERE runs.id = v.column1 AND ${statusOfRuns} IN (${fromStatuses("start")}) AND NOT EXISTS (
      SELECT 1 FROM runs AS earlier WHERE earlier.session_id = runs.session_id
        AND earlier.queue_seq < runs.queue_seq AND earlier.status IN (${UNFINISHED}))
    RETURNING ${runColumns}`;
}

export const startData = (row: RunRow) => ({ workerId: row.worker_id, attempt: row.attempt });

export function endEvent(row: Pick<RunRow, "id" | "status" | "error_code" | "error_message">): {
  runId: string;
  type: RunEventType;
  data: Record<string, unknown> | undefined;
} {
  return {
    runId: row.id,
    type: TERMINAL_EVENT[row.status as TerminalStatus],
    data: row.error_code ? { errorCode: row.error_code, errorMessage: row.error_message } : undefined,
  };
}

/**
 * PostgreSQL: the ends, the starts and their events in one statement (data-modifying
 * CTEs), so a batch costs one round trip and one commit. The two updates never
 * touch the same run: a session's next run is claimed only after its previous run ended.
 * Its text is the same for every batch (rows come as arrays): prepared once, as
 * TRANSITION_STATEMENT, it is not planned again for each batch.
 */
export function transitionStatement(
  db: SqlClient,
  finishes: FinishTransition[],
  starts: StartTransition[],
  now: number,
): SQL {
  const fin = finishStatement(db, finishes, now);
  const st = startStatement(db, starts, now);
  return sql`WITH fin AS (${fin}), st AS (${st}), ev AS (
      INSERT INTO run_events (run_id, type, at, data)
      SELECT id, 'run.' || status, CAST(${now} AS bigint),
        CASE WHEN error_code IS NULL THEN NULL
          ELSE jsonb_build_object('errorCode', error_code, 'errorMessage', error_message) END
      FROM fin
      UNION ALL
      SELECT id, 'run.started', CAST(${now} AS bigint), jsonb_build_object('workerId', worker_id, 'attempt', attempt)
      FROM st)
    SELECT 'finish' AS op, fin.*, NULL AS input, NULL AS output FROM fin UNION ALL SELECT 'start' AS op, st.* FROM st`;
}
