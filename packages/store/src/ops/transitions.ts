import type { Run, RunSummary } from "@oah/contract";
import {
  type RunEventType,
  type RunStatus,
  requireWriteTarget,
  TERMINAL_EVENT,
  type TerminalStatus,
} from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { decodeRun, decodeRunSummary, type RunRow } from "../rows";
import { encodeJson, type SqlClient } from "../sql/client";
import {
  fromStatuses,
  runColumns,
  statusOfRuns,
  summaryColumns,
  toStatus,
  UNFINISHED,
} from "../sql-fragments";
import { causeMessageOfRow } from "./cancel";
import type { Claim } from "./claim";
import type { BatchedOp, OpContext } from "./context";
import { insertEvents } from "./insert-events";
import { statusesOf } from "./reads";

/** What a parked execution saved, and the tool result it waited for: where the next execution goes on from. */
export interface ParkedExecution {
  tool: string;
  state: unknown;
  toolResult: unknown;
}

export type StartResult =
  /** `resumed`: the run was parked, and this execution continues it (resumeRun). */
  | { kind: "started"; run: Run; resumed?: ParkedExecution }
  /** An earlier run of the session is still unfinished: this one must wait behind it. */
  | { kind: "blocked" }
  /** Not queued any more (cancelled, finished, or never committed): drop it from the queue. */
  | { kind: "gone"; status: RunStatus | null };

export interface RunOutcome {
  status: TerminalStatus;
  output?: unknown;
  errorCode?: string | null;
  errorMessage?: string | null;
}

interface StartTransition {
  kind: "start";
  claim: Claim;
  workerId: string;
}

interface FinishTransition {
  kind: "finish";
  claim: Claim;
  outcome: RunOutcome;
}

type Transition = StartTransition | FinishTransition;

/** The prepared statement's name of transitionStatement(). */
const TRANSITION_STATEMENT = "transitions";

/**
 * Starts a run: only the first unfinished run of its session, and only from `queued`. Calls made
 * while a batch of starts and ends is in flight go together into the next one.
 */
export function startRun(ctx: OpContext, claim: Claim, workerId: string): Promise<StartResult> {
  return ctx.batch(TRANSITIONS).submit({ kind: "start", claim, workerId }) as Promise<StartResult>;
}

/**
 * Ends the run; answers its summary (its input and output are not read back), or null when
 * the claim has been fenced out.
 */
export async function finishRun(
  ctx: OpContext,
  claim: Claim,
  outcome: RunOutcome,
): Promise<RunSummary | null> {
  // Refused alone, before it joins a batch that other runs' ends share.
  requireWriteTarget("finish", outcome.status);
  return ctx.batch(TRANSITIONS).submit({ kind: "finish", claim, outcome }) as Promise<RunSummary | null>;
}

/**
 * Ends runs: every terminal status is reached from an active one (docs/spec.md §4), and
 * only by the claim that started the run. Returns the runs' summaries: the host
 * reads no more of an ended run, and a run's input can be large.
 */
function finishStatement(db: SqlClient, finishes: FinishTransition[], now: number): SQL {
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
  // A run cancelled for a later submission (interrupted, replaced) ends with that as its error.
  return sql`UPDATE runs SET status = v.column3, output = ${db.asJson(sql`v.column4`)},
      error_code = CASE WHEN v.column3 = 'cancelled' AND runs.cancel_reason IS NOT NULL THEN runs.cancel_reason
        ELSE v.column5 END,
      error_message = CASE WHEN v.column3 = 'cancelled' AND runs.cancel_reason IS NOT NULL THEN ${causeMessageOfRow}
        ELSE v.column6 END,
      ended_at = ${now}, updated_at = ${now}
    FROM ${rows}
    WHERE runs.id = v.column1 AND runs.claim_token = v.column2 AND ${statusOfRuns} IN (${fromStatuses("finish")})
    RETURNING ${summaryColumns}`;
}

/**
 * Starts runs. Only the first unfinished run of a session may start: the store
 * itself keeps each session serial and in order, whatever a queue or a lock may
 * have got wrong; and only from `queued`, so never twice at once.
 */
function startStatement(db: SqlClient, starts: StartTransition[], now: number): SQL {
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

function endEvent(row: Pick<RunRow, "id" | "status" | "error_code" | "error_message">): {
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
function transitionStatement(
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

/**
 * Starts and ends of runs, written together (the batch of a group commit), so that a
 * busy host pays one commit for many transitions, each with its event.
 */
const TRANSITIONS: BatchedOp<Transition, StartResult | RunSummary | null> = {
  async write(ctx, batch) {
    const { db } = ctx;
    const now = ctx.now();
    const finishes = batch.filter((t): t is FinishTransition => t.kind === "finish");
    const starts = batch.filter((t): t is StartTransition => t.kind === "start");
    const rows =
      db.dialect === "postgres"
        ? await db.all<RunRow & { op: "start" | "finish" }>(
            transitionStatement(db, finishes, starts, now),
            TRANSITION_STATEMENT,
          )
        : await db.transaction(async (tx) => {
            const ended =
              finishes.length > 0
                ? await tx.all<Omit<RunRow, "input" | "output">>(finishStatement(tx, finishes, now))
                : [];
            const started = starts.length > 0 ? await tx.all<RunRow>(startStatement(tx, starts, now)) : [];
            const events = [
              ...ended.map((r) => endEvent(r)),
              ...started.map((r) => ({
                runId: r.id,
                type: "run.started" as const,
                data: { workerId: r.worker_id, attempt: r.attempt },
              })),
            ];
            if (events.length > 0) await insertEvents(tx, events, now);
            return [
              ...ended.map((r) => ({ ...r, op: "finish" as const })),
              ...started.map((r) => ({ ...r, op: "start" as const })),
            ];
          });
    ctx.noteCountedWrite();
    ctx.wrote(rows.map((r) => r.session_id));
    const ended = new Map(rows.filter((r) => r.op === "finish").map((r) => [r.id, r]));
    const started = new Map(rows.filter((r) => r.op === "start").map((r) => [r.id, r]));
    // A start refused: blocked behind an earlier unfinished run, or gone (cancelled, finished, unknown).
    const missed = starts.filter((t) => !started.has(t.claim.runId)).map((t) => t.claim.runId);
    const statuses = missed.length > 0 ? await statusesOf(ctx, missed) : new Map<string, RunStatus>();
    return batch.map((t) => {
      if (t.kind === "finish") {
        const row = ended.get(t.claim.runId);
        return row ? decodeRunSummary(row, db) : null;
      }
      const row = started.get(t.claim.runId);
      if (row) return { kind: "started", run: decodeRun(row, db) } satisfies StartResult;
      return refusedStart(statuses.get(t.claim.runId) ?? null);
    });
  },
};

/** A start the guard refused: blocked behind an earlier unfinished run while queued, else gone. */
function refusedStart(status: RunStatus | null): StartResult {
  return status === "queued" ? { kind: "blocked" } : { kind: "gone", status };
}
