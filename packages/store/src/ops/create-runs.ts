import { type ExecutorName, type Run, sameSubmission } from "@oah/contract";
import {
  type BusyCancelReason,
  batchRefusal,
  busyDecision,
  type IfBusy,
  OahError,
  type QueueEntry,
  type RunPriority,
  type RunStatus,
  type UnfinishedRun,
} from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, entryOf, type RunRow } from "../rows";
import { encodeJson, type SqlClient } from "../sql/client";
import { runColumns, UNFINISHED } from "../sql-fragments";
import { type CancelRequest, requestCancelsIn } from "./cancel";
import type { BatchedOp, OpContext } from "./context";
import { insertEvents } from "./insert-events";
import { insertMessage } from "./run-messages";
import { takePositions } from "./session-positions";

export interface NewRun {
  id: string;
  sessionId: string;
  /** Null: the session's workspace, or `default` for a new session (docs/spec.md §3). */
  workspaceId: string | null;
  parentRunId: string | null;
  priority: RunPriority;
  executor: ExecutorName;
  input: unknown;
  timeoutMs: number;
  idempotencyKey: string | null;
  /** What it does were its session busy (docs/spec.md §5); only `enqueue` shares PostgreSQL's one statement. */
  ifBusy: IfBusy;
}

export interface CreatedRun {
  run: Run;
  created: boolean;
  queueEntry: QueueEntry;
  /** The session's runs this submission cancelled or asked to stop (ifBusy interrupt, replace). */
  cancels: CancelRequest[];
  /** With ifBusy steer, the message its prompt became to `run`, the agent run that executes (no run made). */
  steered: { messageId: number } | null;
}

/**
 * What a submission of a batch did: its run (`created` false: its key made it earlier), its key's
 * conflict, or its refusal (a session of another workspace).
 */
export type SubmissionOutcome = CreatedRun | { conflict: Run } | { refused: OahError };

/** The workspace a session's first run makes it belong to when the run names none. */
const DEFAULT_WORKSPACE = "default";

/**
 * The workspace each session of a batch belongs to (docs/spec.md §3): the one it has, else the
 * workspace of its first run in the batch.
 */
function sessionOwners(
  runs: readonly Pick<NewRun, "sessionId" | "workspaceId">[],
  existing: ReadonlyMap<string, string>,
): Map<string, string> {
  const owners = new Map(existing);
  for (const r of runs)
    if (!owners.has(r.sessionId)) owners.set(r.sessionId, r.workspaceId ?? DEFAULT_WORKSPACE);
  return owners;
}

/** A submission's workspace, given its session's: the one it names must be that one. */
const joinsOwner = (run: Pick<NewRun, "workspaceId">, owner: string | undefined): boolean =>
  run.workspaceId === null || run.workspaceId === owner;

/**
 * A submission into a session of another workspace, refused. The session's own workspace is not
 * named: the caller may not be allowed to know it.
 */
const workspaceMismatch = (run: { sessionId: string; workspaceId: string | null }): OahError =>
  new OahError(
    "session_workspace_mismatch",
    `session ${run.sessionId} belongs to another workspace than ${run.workspaceId}: every run of a session is in ` +
      "the workspace of its first run",
  );

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
 * id order, so that two batches of the same sessions never wait for each other in a cycle. A new
 * session takes the workspace of its first run; a run of another workspace than its session's
 * fails the whole statement on the foreign key (nothing written), reported as
 * `session_workspace_mismatch` for the first such run.
 */
async function insertRunsStatement(ctx: OpContext, runs: readonly NewRun[]): Promise<RunRow[]> {
  try {
    return await insertRunsOnce(ctx, runs);
  } catch (error) {
    if (!isWorkspaceForeignKey(error)) throw error;
    const mismatched = await mismatchedRuns(ctx.db, runs);
    throw mismatched.length > 0 ? workspaceMismatch(runs[mismatched[0]!]!) : error;
  }
}

/** PostgreSQL's refusal of a run whose session belongs to another workspace (the migrations' foreign key). */
const isWorkspaceForeignKey = (error: unknown): boolean =>
  (error as { code?: unknown }).code === "23503" &&
  (error as { constraint?: unknown }).constraint === "runs_session_workspace_fk";

/** The indices of the runs whose sessions belong to other workspaces (as they are now, or as the batch makes them). */
async function mismatchedRuns(db: SqlClient, runs: readonly NewRun[]): Promise<number[]> {
  const ids = [...new Set(runs.map((r) => r.sessionId))];
  const found = await db.all<{ id: string; workspace_id: string }>(
    sql`SELECT id, workspace_id FROM sessions WHERE id IN (SELECT column1 FROM ${db.rowsOf(
      1,
      ids.map((id) => [id]),
    )})`,
  );
  const owners = sessionOwners(runs, new Map(found.map((s) => [s.id, s.workspace_id])));
  return runs.flatMap((r, i) => (joinsOwner(r, owners.get(r.sessionId)) ? [] : [i]));
}

async function insertRunsOnce(ctx: OpContext, runs: readonly NewRun[]): Promise<RunRow[]> {
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
      counts AS (SELECT session_id, COALESCE((array_agg(workspace_id ORDER BY ord))[1], ${DEFAULT_WORKSPACE})
          AS workspace_id, CAST(count(*) AS integer) AS k FROM input GROUP BY session_id),
      numbered AS (INSERT INTO sessions (id, workspace_id, last_seq, created_at, updated_at)
        SELECT session_id, workspace_id, k, CAST(${now} AS bigint), CAST(${now} AS bigint) FROM counts
        ORDER BY session_id
        ON CONFLICT (id) DO UPDATE SET last_seq = sessions.last_seq + excluded.last_seq,
          updated_at = excluded.updated_at
        RETURNING id, workspace_id, last_seq),
      positioned AS (SELECT input.id, input.session_id, input.parent_run_id, input.priority, input.executor,
          input.input, input.timeout_ms, COALESCE(input.workspace_id, numbered.workspace_id) AS workspace_id,
          numbered.last_seq - counts.k
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

/**
 * What became of one submission: its run, made now or earlier (`same` false when its key was used
 * for another body), or its refusal.
 */
type Submitted =
  | {
      row: RunRow;
      created: boolean;
      same: boolean;
      cancels: CancelRequest[];
      steered: CreatedRun["steered"];
    }
  | { refused: OahError };

/** A submission refused under `ifBusy: reject`, nothing written: the run that holds the session. */
const sessionBusy = (sessionId: string, holder: UnfinishedRun): OahError =>
  new OahError(
    "session_busy",
    `session ${sessionId} is busy: ${holder.id} is ${holder.parked ? "parked" : holder.status}; ifBusy: reject ` +
      "refuses a run while its session has an unfinished one",
    { runId: holder.id },
  );

/**
 * The unfinished runs of these sessions, in their order, read under the sessions' locks and
 * locked themselves (a run ends without its session's lock): what their busy submissions decide
 * from, as they stay until the submissions commit.
 */
async function unfinishedRuns(
  tx: SqlClient,
  sessionIds: readonly string[],
): Promise<Map<string, UnfinishedRun[]>> {
  const bySession = new Map<string, UnfinishedRun[]>(sessionIds.map((id) => [id, []]));
  if (sessionIds.length === 0) return bySession;
  const rows = await tx.all<{
    id: string;
    session_id: string;
    status: RunStatus;
    parked_at: number | null;
    executor: string;
    cancel_requested_at: number | null;
    queue_seq: number;
  }>(
    // Locked in id order, as every statement that locks many runs locks them: no two wait in a cycle.
    sql`SELECT id, session_id, status, parked_at, executor, cancel_requested_at, queue_seq FROM runs
      WHERE session_id IN (SELECT column1 FROM ${tx.rowsOf(
        1,
        sessionIds.map((id) => [id]),
      )}) AND status IN (${UNFINISHED}) ORDER BY id ${tx.forUpdate}`,
  );
  rows.sort((a, b) => Number(a.queue_seq) - Number(b.queue_seq));
  for (const r of rows)
    bySession.get(r.session_id)!.push({
      id: r.id,
      status: r.status,
      parked: r.parked_at !== null,
      executor: r.executor,
      stopping: r.cancel_requested_at !== null,
    });
  return bySession;
}

/** The runs a busy session's submission ends (or asks to stop), for that submission. */
interface PlannedCancel {
  runIds: readonly string[];
  reason: BusyCancelReason;
  by: string;
}

/**
 * Where a session stands once a submission is admitted: the runs it cancels that end at once
 * (queued, parked) are gone from it, the new run is at its tail.
 */
function admitted(
  unfinished: UnfinishedRun[],
  cancelled: readonly string[],
  made: Pick<NewRun, "id" | "executor">,
): UnfinishedRun[] {
  const ending = new Set(cancelled);
  return [
    ...unfinished.filter((u) => !(ending.has(u.id) && (u.status === "queued" || u.parked))),
    { id: made.id, status: "queued", parked: false, executor: made.executor, stopping: false },
  ];
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
  if (db.dialect === "postgres" && runs.every((r) => r.idempotencyKey === null && r.ifBusy === "enqueue"))
    return submitUnkeyed(ctx, runs, { atomic });
  return db.transaction(async (tx) => {
    const now = ctx.now();
    const keyOf = (sessionId: string, key: string) => JSON.stringify([sessionId, key]);
    // The sessions' rows first, in id order, locked (made when new, with their first run's
    // workspace, their counters untouched): a submission with the same key elsewhere commits
    // before the keys are looked up, or after.
    const firstWorkspaces = sessionOwners(runs, new Map());
    const sessions = await tx.all<{ id: string; workspace_id: string }>(sql`INSERT INTO sessions
        (id, workspace_id, last_seq, created_at, updated_at)
      SELECT column1, column2, 0, ${now}, ${now} FROM ${tx.rowsOf(
        2,
        [...firstWorkspaces].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      )} WHERE true ORDER BY column1
      ON CONFLICT (id) DO UPDATE SET updated_at = sessions.updated_at RETURNING id, workspace_id`);
    const owners = new Map(sessions.map((s) => [s.id, s.workspace_id]));
    const refusedAt = new Map(
      runs.flatMap((r, i) => (joinsOwner(r, owners.get(r.sessionId)) ? [] : [[i, workspaceMismatch(r)]])),
    );
    const [firstRefused] = refusedAt;
    if (atomic && firstRefused) throw batchRefusal(...firstRefused);
    const keyed = runs.filter((r, i) => r.idempotencyKey !== null && !refusedAt.has(i));
    const earlier = new Map<string, RunRow | NewRun>();
    if (keyed.length > 0) {
      const found = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
        WHERE (session_id, idempotency_key) IN (SELECT column1, column2 FROM ${tx.rowsOf(
          2,
          keyed.map((r) => [r.sessionId, r.idempotencyKey]),
        )})`);
      for (const row of found) earlier.set(keyOf(row.session_id, row.idempotency_key!), row);
    }
    // A busy session's submissions decide from its unfinished runs, as each earlier one leaves them.
    const busy = await unfinishedRuns(tx, [
      ...new Set(runs.filter((r) => r.ifBusy !== "enqueue").map((r) => r.sessionId)),
    ]);
    const cancels: PlannedCancel[] = [];
    const plan: (
      | { make: NewRun }
      | { repeat: RunRow | NewRun; asked: NewRun }
      | { steer: string; asked: NewRun }
      | { refused: OahError }
    )[] = runs.map((r, i) => {
      const refused = refusedAt.get(i);
      if (refused) return { refused };
      const key = r.idempotencyKey === null ? null : keyOf(r.sessionId, r.idempotencyKey);
      const before = key === null ? undefined : earlier.get(key);
      if (before) return { repeat: before, asked: r };
      const unfinished = busy.get(r.sessionId);
      if (unfinished) {
        const decision = busyDecision(r.ifBusy, unfinished, r.executor);
        if ("steer" in decision) return { steer: decision.steer, asked: r };
        if (!decision.admit)
          return { refused: sessionBusy(r.sessionId, unfinished.find((u) => u.id === decision.holder)!) };
        if (decision.reason && decision.cancel.length > 0)
          cancels.push({ runIds: decision.cancel, reason: decision.reason, by: r.id });
        busy.set(r.sessionId, admitted(unfinished, decision.cancel, r));
      }
      if (key !== null) earlier.set(key, r);
      return { make: { ...r, workspaceId: owners.get(r.sessionId)! } };
    });
    const firstBusy = plan.findIndex((p) => "refused" in p);
    if (atomic && firstBusy >= 0)
      throw batchRefusal(firstBusy, (plan[firstBusy] as { refused: OahError }).refused);
    const made = new Map<string, RunRow>();
    const toMake = plan.flatMap((p) => ("make" in p ? [p.make] : []));
    if (toMake.length > 0) {
      const seqs = await takePositions(
        tx,
        toMake.map((r) => r.sessionId),
        now,
      );
      // The default policy is stored as none, as PostgreSQL's one statement stores it.
      const rows = toMake.map((r, i) => [
        ...columnsOf(r),
        String(seqs[i]),
        r.idempotencyKey,
        r.ifBusy === "enqueue" ? null : r.ifBusy,
      ]);
      const inserted =
        await tx.all<RunRow>(sql`INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id,
          parent_run_id, priority, executor, input, status, created_at, enqueued_at, timeout_ms, attempt, metadata,
          idempotency_key, if_busy, updated_at)
        SELECT column1, column2, CAST(column9 AS integer), CAST(column9 AS integer), column3, column4, column5,
          column6, ${tx.asJson(sql`column7`)}, 'queued', ${now}, ${now}, CAST(column8 AS integer), 0,
          ${tx.asJson(sql`'{}'`)}, column10, column11, ${now}
        FROM ${tx.rowsOf(11, rows)} WHERE true
        RETURNING ${runColumns}`);
      for (const row of inserted) made.set(row.id, row);
      const cancelling = new Map(cancels.map((c) => [c.by, c.runIds]));
      await insertEvents(
        tx,
        toMake.map((r) => {
          const row = made.get(r.id)!;
          const busyData =
            r.ifBusy === "enqueue" ? {} : { ifBusy: r.ifBusy, cancelled: cancelling.get(r.id) ?? [] };
          return {
            runId: r.id,
            type: "run.queued",
            data: { seq: row.seq, priority: row.priority, ...busyData },
          };
        }),
        now,
      );
      ctx.noteCountedWrite();
    }
    // A steering submission's prompt is a message to the agent run that executes, in the order
    // the batch gives them; that run is its answer.
    const steered = new Map<number, { row: RunRow; messageId: number }>();
    for (const [index, p] of plan.entries()) {
      if (!("steer" in p)) continue;
      const messageId = await insertMessage(tx, p.steer, (p.asked.input as { prompt: string }).prompt, now);
      const [row] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs WHERE id = ${p.steer}`);
      steered.set(index, { row: row!, messageId });
    }
    const cancelsBy = new Map<string, CancelRequest[]>();
    for (const c of cancels)
      cancelsBy.set(c.by, await requestCancelsIn(tx, c.runIds, now, { reason: c.reason, by: c.by }));
    const outcomes = plan.map((p, index): Submitted => {
      if ("refused" in p) return p;
      if ("make" in p)
        return {
          row: made.get(p.make.id)!,
          created: true,
          same: true,
          cancels: cancelsBy.get(p.make.id) ?? [],
          steered: null,
        };
      if ("steer" in p) {
        const { row, messageId } = steered.get(index)!;
        return { row, created: false, same: true, cancels: [], steered: { messageId } };
      }
      const row = "session_id" in p.repeat ? p.repeat : made.get(p.repeat.id)!;
      return {
        row,
        created: false,
        same: sameSubmission(decodeRun(row, tx), p.asked),
        cancels: [],
        steered: null,
      };
    });
    if (atomic && outcomes.some((o) => "row" in o && !o.same))
      throw batchConflict(
        plan.flatMap((p, index) => {
          const o = outcomes[index]!;
          if (!("repeat" in p) || !("row" in o) || o.same) return [];
          // One made earlier in this batch is not written either: it is named by its place.
          const earlier = "session_id" in p.repeat ? p.repeat.id : `runs[${runs.indexOf(p.repeat)}]`;
          return [{ index, earlier, sessionId: p.asked.sessionId }];
        }),
      );
    return outcomes;
  });
}

/**
 * Submissions without keys on PostgreSQL, in the one statement. When one's session belongs to
 * another workspace the statement writes nothing: an atomic batch is refused, a partial one is
 * written again without the refused submissions (a session made meanwhile can refuse more).
 */
async function submitUnkeyed(
  ctx: OpContext,
  runs: readonly NewRun[],
  { atomic }: { atomic: boolean },
): Promise<Submitted[]> {
  try {
    return (await insertRunsOnce(ctx, runs)).map((row) => ({
      row,
      created: true,
      same: true,
      cancels: [],
      steered: null,
    }));
  } catch (error) {
    if (!isWorkspaceForeignKey(error)) throw error;
    const mismatched = await mismatchedRuns(ctx.db, runs);
    if (mismatched.length === 0) throw error;
    if (atomic) throw batchRefusal(mismatched[0]!, workspaceMismatch(runs[mismatched[0]!]!));
    const refused = new Set(mismatched);
    const rest = runs.filter((_, i) => !refused.has(i));
    const written = rest.length > 0 ? await submitUnkeyed(ctx, rest, { atomic }) : [];
    let next = 0;
    return runs.map((r, i) => (refused.has(i) ? { refused: workspaceMismatch(r) } : written[next++]!));
  }
}

/**
 * An atomic batch refused, nothing written: which of its submissions reuse a key for another body,
 * and of what (a stored run's id, or the place in the batch of one that is not written either).
 */
function batchConflict(
  conflicts: readonly { index: number; earlier: string; sessionId: string }[],
): OahError {
  const each = conflicts.map(
    ({ index, earlier, sessionId }) =>
      `runs[${index}] reuses the idempotencyKey of ${earlier} in session ${sessionId} with another body`,
  );
  return new OahError("idempotency_key_conflict", `nothing was submitted: ${each.join("; ")}`);
}

/**
 * A batch of submissions in one transaction, numbered in their sessions in the order given (docs/spec.md
 * §12): each one's run (made now, or made earlier for the same body by its key), its key's conflict,
 * or its refusal (a session of another workspace); `atomic`, a conflict or a refusal writes
 * nothing and refuses the batch (`idempotency_key_conflict` naming each conflicting index,
 * `session_workspace_mismatch`).
 */
export async function createRuns(
  ctx: OpContext,
  runs: readonly NewRun[],
  options: { atomic: boolean },
): Promise<SubmissionOutcome[]> {
  const submitted = await submitRuns(ctx, runs, options);
  ctx.wrote(submitted.flatMap((s) => ("row" in s && (s.created || s.steered) ? [s.row.session_id] : [])));
  return submitted.map((s) => {
    if ("refused" in s) return s;
    const run = decodeRun(s.row, ctx.db);
    return s.same
      ? { run, created: s.created, queueEntry: entryOf(s.row), cancels: s.cancels, steered: s.steered }
      : { conflict: run };
  });
}

/**
 * One submission: its run, made now, or made earlier by its idempotency key (whatever its
 * body: the caller tells a repeat from a conflict). A session takes runs of one workspace, its
 * first run's: another is refused with `session_workspace_mismatch`, nothing written. On
 * PostgreSQL, submissions without keys that arrive together share one statement and commit.
 */
export async function createRun(ctx: OpContext, run: NewRun): Promise<CreatedRun> {
  if (ctx.db.dialect === "postgres" && run.idempotencyKey === null && run.ifBusy === "enqueue")
    return ctx.batch(SUBMISSIONS).submit(run);
  const [submitted] = (await submitRuns(ctx, [run], { atomic: false })) as [Submitted];
  if ("refused" in submitted) throw submitted.refused;
  const { row, created, cancels, steered } = submitted;
  if (created || steered) ctx.wrote([row.session_id]);
  return { run: decodeRun(row, ctx.db), created, queueEntry: entryOf(row), cancels, steered };
}

/** Single submissions without keys (PostgreSQL), written together by insertRunsStatement. */
const SUBMISSIONS: BatchedOp<NewRun, CreatedRun> = {
  async write(ctx, batch) {
    const rows = await insertRunsStatement(ctx, batch);
    ctx.wrote(rows.map((row) => row.session_id));
    return rows.map((row) => ({
      run: decodeRun(row, ctx.db),
      created: true,
      queueEntry: entryOf(row),
      cancels: [],
      steered: null,
    }));
  },
};
