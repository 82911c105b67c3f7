import type { Run, RunEvent, RunStep, RunSummary, StorageOverview } from "@oah/contract";
import {
  type ActiveStatus,
  checkManualRequeue,
  type QueueEntry,
  RECOVERY_STATES,
  type RecoveryState,
  RUN_STATUSES,
  type RunEventType,
  type RunMetadata,
  type RunStatus,
  recordManualRequeue,
  recordRecovery,
} from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { GroupCommit } from "./group-commit";
import {
  decodeEvent,
  decodeRun,
  decodeRunSummary,
  decodeStep,
  type EventRow,
  entryOf,
  iso,
  type RunRow,
  type StepRow,
} from "./rows";
import type {
  CancelRequest,
  Claim,
  HeartbeatResult,
  ManualRequeueOutcome,
  ManualRequeueRequest,
  NewRun,
  RecoveredRun,
  RecoveryRequest,
  RunOutcome,
  RunStore,
  StaleRunQuery,
  StartResult,
  StepEnd,
  StepStart,
  StorageRunQuery,
  ToolResultDelivery,
  ToolResultTake,
} from "./run-store";
import { encodeJson, Rollback, type SqlClient } from "./sql/client";
import { ACTIVE, runColumns, statusOfRuns, summaryColumns, UNFINISHED } from "./sql-fragments";
import {
  endEvent,
  type FinishTransition,
  finishStatement,
  type StartTransition,
  startData,
  startStatement,
  TRANSITION_STATEMENT,
  type Transition,
  transitionStatement,
} from "./transitions";

export interface SqlRunStoreOptions {
  now?: () => number;
  /** How many status-changing writes a host makes between two folds of the overview's counters. */
  foldCountsEvery?: number;
}

/** The RunStore over PostgreSQL or SQLite: one set of queries, rendered by the client's dialect. */
export class SqlRunStore implements RunStore {
  private readonly now: () => number;
  private readonly foldEvery: number;
  private unfoldedWrites = 0;
  private readonly transitions = new GroupCommit((batch: Transition[]) => this.writeTransitions(batch));

  constructor(
    private readonly db: SqlClient,
    options: SqlRunStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.foldEvery = options.foldCountsEvery ?? 1_000;
  }

  get dialect() {
    return this.db.dialect;
  }

  private run(row: RunRow): Run {
    return decodeRun(row, (v) => this.db.decodeJson(v));
  }

  private async insertEvent(
    tx: SqlClient,
    runId: string,
    type: RunEventType,
    at: number,
    data?: Record<string, unknown>,
  ): Promise<void> {
    await this.insertEvents(tx, [{ runId, type, data }], at);
  }

  private async insertEvents(
    tx: SqlClient,
    events: { runId: string; type: RunEventType; data: Record<string, unknown> | undefined }[],
    at: number,
  ): Promise<void> {
    const rows = tx.rowsOf(
      3,
      events.map((e) => [e.runId, e.type, e.data === undefined ? null : encodeJson(e.data)]),
    );
    await tx.run(
      sql`INSERT INTO run_events (run_id, type, at, data)
        SELECT column1, column2, CAST(${at} AS BIGINT), ${tx.asJson(sql`column3`)} FROM ${rows}`,
      "insert_events",
    );
  }

  async createRun(input: NewRun): Promise<{ run: Run; created: boolean; queueEntry: QueueEntry }> {
    const now = this.now();
    // The upsert takes the session's row lock: submissions to one session are numbered one at a time.
    const numberSubmission = sql`INSERT INTO sessions (id, last_seq, created_at, updated_at)
      VALUES (${input.sessionId}, 1, ${now}, ${now})
      ON CONFLICT (id) DO UPDATE SET last_seq = sessions.last_seq + 1, updated_at = excluded.updated_at
      RETURNING last_seq`;
    const insertRun = (db: SqlClient, seq: SQL, from: SQL) => sql`
      INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, parent_run_id, priority, executor, input,
        status, created_at, enqueued_at, timeout_ms, attempt, metadata, idempotency_key, updated_at)
      SELECT ${input.id}, ${input.sessionId}, ${seq}, ${seq}, ${input.workspaceId}, ${input.parentRunId},
        ${input.priority}, ${input.executor}, ${db.asJson(sql`${encodeJson(input.input ?? null)}`)}, 'queued', ${now},
        ${now}, ${input.timeoutMs}, 0, ${db.asJson(sql`'{}'`)}, ${input.idempotencyKey}, ${now} ${from}
      RETURNING ${runColumns}`;
    if (this.db.dialect === "postgres" && input.idempotencyKey === null) {
      // The common case in one statement: one round trip and one commit per submission.
      const [row] = await this.db.all<RunRow>(
        sql`WITH numbered AS (${numberSubmission}),
          inserted AS (${insertRun(this.db, sql`numbered.last_seq`, sql`FROM numbered`)}),
          queued AS (INSERT INTO run_events (run_id, type, at, data)
            SELECT id, 'run.queued', CAST(${now} AS bigint), jsonb_build_object('seq', seq, 'priority', priority)
            FROM inserted)
          SELECT ${runColumns} FROM inserted`,
        "create_run",
      );
      this.noteCountedWrite();
      return { run: this.run(row!), created: true, queueEntry: entryOf(row!) };
    }
    return this.db.transaction(async (tx) => {
      const [session] = await tx.all<{ last_seq: number }>(numberSubmission, "number_submission");
      if (input.idempotencyKey !== null) {
        const [existing] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
          WHERE session_id = ${input.sessionId} AND idempotency_key = ${input.idempotencyKey}`);
        if (existing)
          throw new Rollback({ run: this.run(existing), created: false, queueEntry: entryOf(existing) });
      }
      const seq = session!.last_seq;
      const [row] = await tx.all<RunRow>(insertRun(tx, sql`${seq}`, sql``), "insert_run");
      await this.insertEvent(tx, input.id, "run.queued", now, { seq, priority: input.priority });
      this.noteCountedWrite();
      return { run: this.run(row!), created: true, queueEntry: entryOf(row!) };
    });
  }

  /**
   * On PostgreSQL, the overview's counters are appended to by every statement that
   * changes runs; every so many writes, a host folds them into one row per counter
   * (in the background: until then, the counts are right, only longer to sum).
   * Concurrent folds are safe: each row is deleted, and so counted, once.
   */
  private noteCountedWrite(): void {
    if (this.db.dialect !== "postgres" || ++this.unfoldedWrites < this.foldEvery) return;
    this.unfoldedWrites = 0;
    this.db
      .run(
        sql`WITH gone AS (DELETE FROM run_counts RETURNING counter, n)
          INSERT INTO run_counts (counter, n) SELECT counter, sum(n) FROM gone GROUP BY counter HAVING sum(n) <> 0`,
        "fold_counts",
      )
      .catch(() => {
        // Housekeeping only: the next fold takes these rows too.
      });
  }

  async getRun(runId: string): Promise<Run | null> {
    const [row] = await this.db.all<RunRow>(sql`SELECT ${runColumns} FROM runs WHERE id = ${runId}`);
    return row ? this.run(row) : null;
  }

  async listSessionRuns(sessionId: string, page: { after?: number; limit: number }): Promise<Run[]> {
    const rows = await this.db.all<RunRow>(sql`SELECT ${runColumns} FROM runs
      WHERE session_id = ${sessionId} AND seq > ${page.after ?? 0} ORDER BY seq LIMIT ${page.limit}`);
    return rows.map((r) => this.run(r));
  }

  async listRunEvents(runId: string, page: { after?: number; limit: number }): Promise<RunEvent[]> {
    const rows = await this.db.all<EventRow>(sql`SELECT id, run_id, type, at, data FROM run_events
      WHERE run_id = ${runId} AND id > ${page.after ?? 0} ORDER BY id LIMIT ${page.limit}`);
    return rows.map((r) => decodeEvent(r, (v) => this.db.decodeJson(v)));
  }

  async listRunSteps(runId: string): Promise<RunStep[]> {
    const rows =
      await this.db.all<StepRow>(sql`SELECT id, run_id, kind, name, status, started_at, ended_at, output,
      error_code, error_message FROM run_steps WHERE run_id = ${runId} ORDER BY id`);
    return rows.map((r) => decodeStep(r, (v) => this.db.decodeJson(v)));
  }

  async previousOutput(sessionId: string, beforeSeq: number, executor: string): Promise<unknown> {
    const [row] = await this.db.all<{ output: unknown }>(sql`SELECT output FROM runs
      WHERE session_id = ${sessionId} AND seq < ${beforeSeq} AND executor = ${executor} AND status = 'completed'
      ORDER BY seq DESC LIMIT 1`);
    return row ? (this.db.decodeJson(row.output) ?? null) : null;
  }

  async listQueuedRuns(page: {
    after?: { sessionId: string; queueSeq: number };
    enqueuedBefore?: number;
    limit: number;
  }): Promise<QueueEntry[]> {
    // A row comparison, so that a page starts where the last ended in the index (an OR of
    // the two columns would rescan every earlier entry, page after page).
    const after = page.after
      ? sql`AND (session_id, queue_seq) > (${page.after.sessionId}, ${page.after.queueSeq})`
      : sql``;
    // In queue order: the partial index of unfinished runs gives that order (the IN term
    // names its predicate; the status test, hidden from indexes, keeps stale statistics from
    // choosing the status index and a sort of every queued run per page). By wait: the
    // partial index of queued runs.
    const where =
      page.enqueuedBefore === undefined
        ? sql`status IN (${UNFINISHED}) AND ${statusOfRuns} = 'queued' ${after} ORDER BY session_id, queue_seq`
        : sql`status = 'queued' ${after} AND enqueued_at < ${page.enqueuedBefore} ORDER BY enqueued_at`;
    const rows = await this.db.all<
      Pick<RunRow, "id" | "session_id" | "queue_seq" | "priority" | "enqueued_at">
    >(sql`
      SELECT id, session_id, queue_seq, priority, enqueued_at FROM runs WHERE ${where} LIMIT ${page.limit}`);
    return rows.map(entryOf);
  }

  startRun(claim: Claim, workerId: string): Promise<StartResult> {
    return this.transitions.submit({ kind: "start", claim, workerId }) as Promise<StartResult>;
  }

  finishRun(claim: Claim, outcome: RunOutcome): Promise<Run | null> {
    return this.transitions.submit({ kind: "finish", claim, outcome }) as Promise<Run | null>;
  }

  /**
   * Starts and ends of runs, written together: every call that arrives while a
   * write is in flight goes into the next one (group commit), so that a busy host
   * pays one commit for many transitions, each with its event.
   */
  private async writeTransitions(batch: Transition[]): Promise<(StartResult | Run | null)[]> {
    const now = this.now();
    const finishes = batch.filter((t): t is FinishTransition => t.kind === "finish");
    const starts = batch.filter((t): t is StartTransition => t.kind === "start");
    const rows =
      this.db.dialect === "postgres"
        ? await this.db.all<RunRow & { op: "start" | "finish" }>(
            transitionStatement(this.db, finishes, starts, now),
            TRANSITION_STATEMENT,
          )
        : await this.db.transaction(async (tx) => {
            const ended = finishes.length > 0 ? await tx.all<RunRow>(finishStatement(tx, finishes, now)) : [];
            const started = starts.length > 0 ? await tx.all<RunRow>(startStatement(tx, starts, now)) : [];
            const events = [
              ...ended.map((r) => endEvent(r)),
              ...started.map((r) => ({ runId: r.id, type: "run.started" as const, data: startData(r) })),
            ];
            if (events.length > 0) await this.insertEvents(tx, events, now);
            return [
              ...ended.map((r) => ({ ...r, op: "finish" as const })),
              ...started.map((r) => ({ ...r, op: "start" as const })),
            ];
          });
    this.noteCountedWrite();
    const ended = new Map(rows.filter((r) => r.op === "finish").map((r) => [r.id, r]));
    const started = new Map(rows.filter((r) => r.op === "start").map((r) => [r.id, r]));
    // A start refused: blocked behind an earlier unfinished run, or gone (cancelled, finished, unknown).
    const missed = starts.filter((t) => !started.has(t.claim.runId)).map((t) => t.claim.runId);
    const statuses = missed.length > 0 ? await this.statusesOf(missed) : new Map<string, RunStatus>();
    return batch.map((t) => {
      if (t.kind === "finish") {
        const row = ended.get(t.claim.runId);
        return row ? this.run(row) : null;
      }
      const row = started.get(t.claim.runId);
      if (row) return { kind: "started", run: this.run(row) } satisfies StartResult;
      const status = statuses.get(t.claim.runId) ?? null;
      return status === "queued"
        ? ({ kind: "blocked" } satisfies StartResult)
        : ({ kind: "gone", status } satisfies StartResult);
    });
  }

  async heartbeat(claims: Claim[]): Promise<HeartbeatResult> {
    if (claims.length === 0) return { fenced: [], cancelRequested: [], toolResultReady: [] };
    const now = this.now();
    const pairs = this.db.rowsOf(
      2,
      claims.map((c) => [c.runId, c.token]),
    );
    const rows = await this.db.all<{
      id: string;
      claim_token: string;
      cancel_requested_at: number | null;
      has_tool_result: number | boolean;
    }>(
      sql`
      UPDATE runs SET heartbeat_at = ${now}
      WHERE ${statusOfRuns} IN (${ACTIVE}) AND (id, claim_token) IN (SELECT column1, column2 FROM ${pairs})
      RETURNING id, claim_token, cancel_requested_at, tool_result IS NOT NULL AS has_tool_result`,
      "heartbeat",
    );
    const alive = new Set(rows.map((r) => `${r.id} ${r.claim_token}`));
    return {
      fenced: claims.filter((c) => !alive.has(`${c.runId} ${c.token}`)).map((c) => c.runId),
      cancelRequested: rows.filter((r) => r.cancel_requested_at !== null).map((r) => r.id),
      toolResultReady: rows.filter((r) => Boolean(r.has_tool_result)).map((r) => r.id),
    };
  }

  /** The fence every execution write passes: the run is still active and still this claim's. */
  private owns(claim: Claim): SQL {
    return sql`EXISTS (SELECT 1 FROM runs WHERE id = ${claim.runId} AND claim_token = ${claim.token}
      AND status IN (${ACTIVE}))`;
  }

  async appendEvent(claim: Claim, type: RunEventType, data?: Record<string, unknown>): Promise<boolean> {
    const changed = await this.db.run(sql`INSERT INTO run_events (run_id, type, at, data)
      SELECT ${claim.runId}, ${type}, CAST(${this.now()} AS BIGINT), ${this.db.json(data)} WHERE ${this.owns(claim)}`);
    return changed === 1;
  }

  async startStep(claim: Claim, step: StepStart): Promise<number | null> {
    const [row] = await this.db.all<{
      id: number;
    }>(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at)
      SELECT ${claim.runId}, ${step.kind}, ${step.name}, 'running', CAST(${step.at ?? this.now()} AS BIGINT)
      WHERE ${this.owns(claim)} RETURNING id`);
    return row?.id ?? null;
  }

  async updateStepOutput(claim: Claim, stepId: number, output: unknown): Promise<boolean> {
    const changed = await this.db.run(sql`UPDATE run_steps SET output = ${this.db.json(output)}
      WHERE id = ${stepId} AND run_id = ${claim.runId} AND status = 'running' AND ${this.owns(claim)}`);
    return changed === 1;
  }

  async finishStep(claim: Claim, stepId: number, end: StepEnd): Promise<boolean> {
    const changed =
      await this.db.run(sql`UPDATE run_steps SET status = ${end.status}, ended_at = ${this.now()},
        output = ${this.db.json(end.output)}, error_code = ${end.errorCode ?? null},
        error_message = ${end.errorMessage ?? null}
      WHERE id = ${stepId} AND run_id = ${claim.runId} AND ${this.owns(claim)}`);
    return changed === 1;
  }

  async requestCancel(runId: string): Promise<CancelRequest> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<RunRow>(
        sql`SELECT ${runColumns} FROM runs WHERE id = ${runId} ${tx.forUpdate}`,
      );
      if (!row) return { kind: "missing" } as const;
      if (row.status === "queued") {
        const [cancelled] =
          await tx.all<RunRow>(sql`UPDATE runs SET status = 'cancelled', cancel_requested_at = ${now},
            ended_at = ${now}, updated_at = ${now}
          WHERE id = ${runId} RETURNING ${runColumns}`);
        await this.insertEvent(tx, runId, "run.cancelled", now, { while: "queued" });
        return { kind: "cancelled", run: this.run(cancelled!) } as const;
      }
      if (row.status === "running" || row.status === "waiting_tool") {
        const [requested] = await tx.all<RunRow>(sql`UPDATE runs
          SET cancel_requested_at = COALESCE(cancel_requested_at, ${now}), updated_at = ${now}
          WHERE id = ${runId} RETURNING ${runColumns}`);
        return { kind: "requested", run: this.run(requested!) } as const;
      }
      return { kind: "terminal", run: this.run(row) } as const;
    });
  }

  async waitForTool(claim: Claim, name: string): Promise<boolean> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const changed = await tx.run(sql`UPDATE runs SET status = 'waiting_tool', waiting_tool = ${name},
          tool_result = NULL, updated_at = ${now}
        WHERE id = ${claim.runId} AND claim_token = ${claim.token} AND status = 'running'`);
      if (changed === 0) return false;
      await this.insertEvent(tx, claim.runId, "run.waiting_tool", now, { name });
      return true;
    });
  }

  async deliverToolResult(runId: string, name: string, output: unknown): Promise<ToolResultDelivery> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<RunRow & { pending: number | boolean }>(sql`SELECT ${runColumns},
          tool_result IS NOT NULL AS pending FROM runs WHERE id = ${runId} ${tx.forUpdate}`);
      if (!row) return { kind: "unknown_run" } as const;
      if (row.status !== "waiting_tool" || row.pending) {
        return {
          kind: "not_waiting",
          status: row.status as RunStatus,
          waitingTool: row.waiting_tool,
        } as const;
      }
      if (row.waiting_tool !== name)
        return { kind: "wrong_name", waitingTool: row.waiting_tool ?? "" } as const;
      // Stored wrapped, so that a JSON null result is told apart from "no result yet".
      await tx.run(sql`UPDATE runs SET tool_result = ${tx.json({ value: output })}, updated_at = ${now}
        WHERE id = ${runId}`);
      return { kind: "accepted", run: this.run(row) } as const;
    });
  }

  async takeToolResult(claim: Claim): Promise<ToolResultTake> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<{ status: string; waiting_tool: string | null; tool_result: unknown }>(sql`
        SELECT status, waiting_tool, tool_result FROM runs
        WHERE id = ${claim.runId} AND claim_token = ${claim.token} ${tx.forUpdate}`);
      if (row?.status !== "waiting_tool") return { kind: "fenced" } as const;
      if (row.tool_result === null) return { kind: "pending" } as const;
      await tx.run(sql`UPDATE runs SET status = 'running', waiting_tool = NULL, tool_result = NULL, updated_at = ${now}
        WHERE id = ${claim.runId}`);
      await this.insertEvent(tx, claim.runId, "run.resumed", now, { name: row.waiting_tool });
      const { value } = tx.decodeJson(row.tool_result) as { value: unknown };
      return { kind: "taken", output: value } as const;
    });
  }

  async requeueRuns(
    runIds: readonly string[],
    request: ManualRequeueRequest,
  ): Promise<ManualRequeueOutcome[]> {
    const outcomes: ManualRequeueOutcome[] = [];
    for (const runId of runIds) outcomes.push(await this.requeueRun(runId, request));
    return outcomes;
  }

  private requeueRun(runId: string, request: ManualRequeueRequest): Promise<ManualRequeueOutcome> {
    const { by, maxAttempts } = request;
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<RunRow>(
        sql`SELECT ${runColumns} FROM runs WHERE id = ${runId} ${tx.forUpdate}`,
      );
      if (!row)
        return { runId, ok: false, code: "run_not_found", message: `no run with id ${runId}` } as const;
      const metadata = (tx.decodeJson(row.metadata) ?? {}) as RunMetadata;
      const status = row.status as RunStatus;
      const check = checkManualRequeue(
        {
          status,
          errorCode: row.error_code,
          recoveryState: row.recovery_state as RecoveryState | null,
          metadata,
          hasSession: row.session_id !== "",
          cancelRequested: row.cancel_requested_at !== null,
        },
        request.includeCancelled,
      );
      if (!check.ok) return { runId, ok: false, code: check.code, message: check.message } as const;
      const next = recordManualRequeue(metadata, { from: status, by, at: new Date(now), maxAttempts });
      // The tail of its session: a fresh position from the session's counter.
      const [session] = await tx.all<{ last_seq: number }>(sql`UPDATE sessions SET last_seq = last_seq + 1,
          updated_at = ${now} WHERE id = ${row.session_id} RETURNING last_seq`);
      const [requeued] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = 'queued', queue_seq = ${session!.last_seq},
          output = NULL, error_code = NULL, error_message = NULL, started_at = NULL, heartbeat_at = NULL, ended_at = NULL,
          cancel_requested_at = NULL, claim_token = NULL, waiting_tool = NULL, tool_result = NULL,
          recovery_state = 'requeued', recovery_reason = 'manual_operator_requeue', metadata = ${tx.json(next)},
          enqueued_at = ${now}, updated_at = ${now}
        WHERE id = ${runId} RETURNING ${runColumns}`);
      const data = { reason: "manual_operator_requeue", requestedBy: by, from: status };
      await this.insertEvents(
        tx,
        [
          { runId, type: "run.requeued", data },
          { runId, type: "run.queued", data },
        ],
        now,
      );
      await tx.run(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, ended_at, output)
        VALUES (${runId}, 'system', 'run.requeued', 'completed', ${now}, ${now}, ${tx.json(data)})`);
      return { runId, ok: true, previousStatus: status, queueEntry: entryOf(requeued!) } as const;
    });
  }

  async listRuns(query: StorageRunQuery): Promise<RunSummary[]> {
    const where: SQL[] = [];
    const anyOf = (column: string, values: readonly string[] | undefined) => {
      if (!values || values.length === 0) return;
      const list = sql.join(
        values.map((v) => sql`${v}`),
        sql`, `,
      );
      where.push(sql`${sql.raw(column)} IN (${list})`);
    };
    anyOf("status", query.status);
    anyOf("error_code", query.errorCode);
    anyOf("recovery_state", query.recoveryState);
    if (query.sessionId !== undefined) where.push(sql`session_id = ${query.sessionId}`);
    if (query.workspaceId !== undefined) where.push(sql`workspace_id = ${query.workspaceId}`);
    if (query.runId !== undefined) where.push(sql`id = ${query.runId}`);
    if (query.createdFrom !== undefined) where.push(sql`created_at >= ${query.createdFrom}`);
    if (query.createdTo !== undefined) where.push(sql`created_at < ${query.createdTo}`);
    if (query.after) where.push(sql`(created_at, id) < (${query.after.createdAt}, ${query.after.id})`);
    const filter = where.length > 0 ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``;
    const rows = await this.db.all<RunRow>(sql`SELECT ${summaryColumns} FROM runs ${filter}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`);
    return rows.map((r) => decodeRunSummary(r, (v) => this.db.decodeJson(v)));
  }

  async overview(): Promise<StorageOverview> {
    // Counts from the counters the triggers keep (schema: runCounts), times from one index lookup each.
    const rows = await this.db.all<{ counter: string; n: number }>(
      sql`SELECT counter, sum(n) AS n FROM run_counts GROUP BY counter`,
    );
    const counters = new Map(rows.map((r) => [r.counter, Number(r.n)]));
    const count = (counter: string) => counters.get(counter) ?? 0;
    // Per state, not over all states at once: each is one lookup at an end of runs_recovery_time_idx.
    const newestOf = RECOVERY_STATES.map(
      (state) =>
        sql`(SELECT max(recovered_at) FROM runs WHERE recovery_state = ${sql.raw(`'${state}'`)}) AS ${sql.raw(`newest_${state}`)}`,
    );
    const [times] = await this.db.all<Record<string, number | null>>(sql`SELECT
        (SELECT min(recovered_at) FROM runs WHERE recovery_state = 'quarantined') AS oldest_quarantined,
        ${sql.join(newestOf, sql`, `)}`);
    const time = (ms: number | null | undefined) => (ms ? iso(Number(ms)) : null);
    const newest = Math.max(0, ...RECOVERY_STATES.map((state) => Number(times?.[`newest_${state}`] ?? 0)));
    const reasons = [...counters]
      .filter(([counter, n]) => counter.startsWith("quarantine:") && n > 0)
      .map(([counter, n]) => ({ reason: counter.slice("quarantine:".length), count: n }))
      .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0))
      .slice(0, 5);
    const byState = (state: RecoveryState) => count(`recovery:${state}`);
    return {
      statusCounts: Object.fromEntries(RUN_STATUSES.map((st) => [st, count(`status:${st}`)])) as Record<
        RunStatus,
        number
      >,
      recovery: {
        trackedRuns: RECOVERY_STATES.reduce((sum, state) => sum + byState(state), 0),
        quarantinedRuns: byState("quarantined"),
        requeuedRuns: byState("requeued"),
        failedRecoveryRuns: byState("failed"),
        workerRecoveryFailures: count("worker_recovery_failed"),
        oldestQuarantinedAt: time(times?.oldest_quarantined),
        newestQuarantinedAt: time(times?.newest_quarantined),
        newestRecoveredAt: time(newest),
        topQuarantineReasons: reasons,
      },
    };
  }

  async statusesOf(runIds: readonly string[]): Promise<Map<string, RunStatus>> {
    if (runIds.length === 0) return new Map();
    const ids = sql.join(
      runIds.map((id) => sql`${id}`),
      sql`, `,
    );
    const rows = await this.db.all<{ id: string; status: RunStatus }>(sql`SELECT id, status FROM runs
      WHERE id IN (${ids})`);
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  async countQueued(): Promise<number> {
    const [row] = await this.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM runs
      WHERE status IN (${UNFINISHED}) AND status = 'queued'`);
    return Number(row?.n ?? 0);
  }

  async findStaleRuns(query: StaleRunQuery): Promise<Run[]> {
    const rows = await this.db.all<RunRow>(sql`SELECT ${runColumns} FROM runs
      WHERE status IN (${ACTIVE}) AND COALESCE(heartbeat_at, started_at, created_at) < ${query.lastSeenBefore}
        ${query.after ? sql`AND (session_id, id) > (${query.after.sessionId}, ${query.after.id})` : sql``}
      ORDER BY session_id, id LIMIT ${query.limit}`);
    return rows.map((r) => this.run(r));
  }

  async recoverRun(request: RecoveryRequest): Promise<RecoveredRun | null> {
    const now = this.now();
    const { context } = request;
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs
        WHERE id = ${request.runId} AND status IN (${ACTIVE})
          AND COALESCE(heartbeat_at, started_at, created_at) < ${request.lastSeenBefore}
        ${tx.forUpdate}`);
      if (!row) return null;
      const from = row.status as ActiveStatus;
      const stored = (tx.decodeJson(row.metadata) ?? {}) as RunMetadata;
      const decision = request.decide({
        status: from,
        recoveryAttempts: stored.recoveryAttempts ?? 0,
        cancelRequested: row.cancel_requested_at !== null,
      });
      if (decision.action === "wait") return null;
      // Steps the stale execution left open end with it.
      await tx.run(sql`UPDATE run_steps SET status = 'failed', ended_at = ${now}, error_code = 'worker_recovery_failed',
          error_message = 'the worker executing this step stopped responding'
        WHERE run_id = ${request.runId} AND status = 'running'`);
      // Clearing the claim token fences out the execution that went stale, should it wake up.
      if (decision.action === "cancel") {
        const [cancelled] = await tx.all<RunRow>(sql`UPDATE runs SET status = 'cancelled', ended_at = ${now},
            claim_token = NULL, waiting_tool = NULL, tool_result = NULL, updated_at = ${now}
          WHERE id = ${request.runId} RETURNING ${runColumns}`);
        await this.insertEvent(tx, request.runId, "run.cancelled", now, {
          reason: "cancel_requested",
          recoveredBy: context.by,
          from,
        });
        return {
          run: this.run(cancelled!),
          action: decision,
          queueEntry: null,
          previousClaimToken: row.claim_token,
        };
      }
      // One clock for the columns and the metadata: the overview's times match deadLetter.at.
      const metadata = recordRecovery(stored, decision, { ...context, at: new Date(now), from });
      const recovery = metadata.recovery!;
      if (decision.action === "requeue") {
        const [requeued] = await tx.all<RunRow>(sql`UPDATE runs SET status = 'queued', started_at = NULL,
            heartbeat_at = NULL, ended_at = NULL, cancel_requested_at = NULL, error_code = NULL, error_message = NULL,
            claim_token = NULL, waiting_tool = NULL, tool_result = NULL, recovery_state = ${recovery.state},
            recovery_reason = ${recovery.reason}, recovered_at = ${now}, metadata = ${tx.json(metadata)},
            enqueued_at = ${now}, updated_at = ${now}
          WHERE id = ${request.runId} RETURNING ${runColumns}`);
        const data = { reason: recovery.reason, recoveryAttempts: recovery.attempts, from: row.status };
        await this.insertEvent(tx, request.runId, "run.requeued", now, data);
        await this.insertEvent(tx, request.runId, "run.queued", now, data);
        await tx.run(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, ended_at, output)
          VALUES (${request.runId}, 'system', 'run.requeued', 'completed', ${now}, ${now}, ${tx.json(data)})`);
        return {
          run: this.run(requeued!),
          action: decision,
          queueEntry: entryOf(requeued!),
          previousClaimToken: row.claim_token,
        };
      }
      const message = `run was ${row.status} on a worker that stopped responding (${recovery.reason})`;
      const [failed] = await tx.all<RunRow>(sql`UPDATE runs SET status = 'failed',
          error_code = 'worker_recovery_failed', error_message = ${message}, ended_at = ${now}, claim_token = NULL,
          waiting_tool = NULL, tool_result = NULL, recovery_state = ${recovery.state},
          recovery_reason = ${recovery.reason}, recovered_at = ${now}, metadata = ${tx.json(metadata)},
          updated_at = ${now}
        WHERE id = ${request.runId} RETURNING ${runColumns}`);
      await this.insertEvent(tx, request.runId, "run.failed", now, {
        errorCode: "worker_recovery_failed",
        errorMessage: message,
        reason: recovery.reason,
        recoveryState: recovery.state,
      });
      return {
        run: this.run(failed!),
        action: decision,
        queueEntry: null,
        previousClaimToken: row.claim_token,
      };
    });
  }

  acquireExclusiveUse(): Promise<void> {
    return this.db.acquireExclusiveUse();
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
