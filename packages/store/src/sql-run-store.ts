import type { Run, RunEvent, RunStep } from "@oah/contract";
import {
  ACTIVE_STATUSES,
  type QueueEntry,
  type RunEventType,
  type RunMetadata,
  type RunStatus,
  recordRecovery,
  TERMINAL_EVENT,
  type TerminalStatus,
} from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { GroupCommit } from "./group-commit";
import {
  decodeEvent,
  decodeRun,
  decodeStep,
  type EventRow,
  entryOf,
  RUN_COLUMNS,
  type RunRow,
  type StepRow,
} from "./rows";
import type {
  CancelRequest,
  Claim,
  HeartbeatResult,
  NewRun,
  RecoveredRun,
  RecoveryRequest,
  RunOutcome,
  RunStore,
  StaleRunQuery,
  StartResult,
  StepEnd,
  StepStart,
} from "./run-store";
import { encodeJson, Rollback, type SqlClient } from "./sql/client";

const columns = sql.raw(RUN_COLUMNS);

/**
 * Statuses inlined as literals, not parameters: SQLite uses a partial index only
 * when the query repeats the index's WHERE terms literally. Code constants only.
 */
function statuses(values: readonly RunStatus[]): SQL {
  return sql.raw(values.map((v) => `'${v}'`).join(", "));
}

const ACTIVE = statuses(ACTIVE_STATUSES);
const UNFINISHED = statuses(["queued", ...ACTIVE_STATUSES]);

export interface SqlRunStoreOptions {
  now?: () => number;
}

/** The RunStore over PostgreSQL or SQLite: one set of queries, rendered by the client's dialect. */
export class SqlRunStore implements RunStore {
  private readonly now: () => number;
  private readonly starts = new GroupCommit((batch: { claim: Claim; workerId: string }[]) =>
    this.startRuns(batch),
  );
  private readonly finishes = new GroupCommit((batch: { claim: Claim; outcome: RunOutcome }[]) =>
    this.finishRuns(batch),
  );

  constructor(
    private readonly db: SqlClient,
    options: SqlRunStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
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
    const rows = sql.join(
      events.map((e) => sql`(${e.runId}, ${e.type}, ${at}, ${tx.json(e.data)})`),
      sql`, `,
    );
    await tx.run(sql`INSERT INTO run_events (run_id, type, at, data) VALUES ${rows}`);
  }

  async createRun(input: NewRun): Promise<{ run: Run; created: boolean; queueEntry: QueueEntry }> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      // The upsert takes the session's row lock: submissions to one session are numbered one at a time.
      const [session] = await tx.all<{ last_seq: number }>(sql`
        INSERT INTO sessions (id, last_seq, created_at, updated_at) VALUES (${input.sessionId}, 1, ${now}, ${now})
        ON CONFLICT (id) DO UPDATE SET last_seq = sessions.last_seq + 1, updated_at = excluded.updated_at
        RETURNING last_seq`);
      if (input.idempotencyKey !== null) {
        const [existing] = await tx.all<RunRow>(sql`SELECT ${columns} FROM runs
          WHERE session_id = ${input.sessionId} AND idempotency_key = ${input.idempotencyKey}`);
        if (existing)
          throw new Rollback({ run: this.run(existing), created: false, queueEntry: entryOf(existing) });
      }
      const seq = session!.last_seq;
      const [row] = await tx.all<RunRow>(sql`
        INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, parent_run_id, priority, executor, input,
          status, created_at, enqueued_at, timeout_ms, attempt, metadata, idempotency_key, updated_at)
        VALUES (${input.id}, ${input.sessionId}, ${seq}, ${seq}, ${input.workspaceId}, ${input.parentRunId},
          ${input.priority}, ${input.executor}, ${tx.json(input.input)}, 'queued', ${now}, ${now}, ${input.timeoutMs},
          0, ${tx.json({})}, ${input.idempotencyKey}, ${now})
        RETURNING ${columns}`);
      await this.insertEvent(tx, input.id, "run.queued", now, { seq, priority: input.priority });
      return { run: this.run(row!), created: true, queueEntry: entryOf(row!) };
    });
  }

  async getRun(runId: string): Promise<Run | null> {
    const [row] = await this.db.all<RunRow>(sql`SELECT ${columns} FROM runs WHERE id = ${runId}`);
    return row ? this.run(row) : null;
  }

  async listSessionRuns(sessionId: string, page: { after?: number; limit: number }): Promise<Run[]> {
    const rows = await this.db.all<RunRow>(sql`SELECT ${columns} FROM runs
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

  async listQueuedRuns(page: {
    after?: { sessionId: string; queueSeq: number };
    limit: number;
  }): Promise<QueueEntry[]> {
    const after = page.after
      ? sql`AND (session_id > ${page.after.sessionId} OR (session_id = ${page.after.sessionId} AND queue_seq > ${page.after.queueSeq}))`
      : sql``;
    // The redundant IN term lets SQLite pick the partial index of unfinished runs.
    const rows = await this.db.all<
      Pick<RunRow, "id" | "session_id" | "queue_seq" | "priority" | "enqueued_at">
    >(sql`SELECT id, session_id, queue_seq, priority, enqueued_at FROM runs
      WHERE status IN (${UNFINISHED}) AND status = 'queued' ${after}
      ORDER BY session_id, queue_seq LIMIT ${page.limit}`);
    return rows.map(entryOf);
  }

  startRun(claim: Claim, workerId: string): Promise<StartResult> {
    return this.starts.submit({ claim, workerId });
  }

  /** Starts a batch of runs in one transaction (group commit of concurrent starts). */
  private async startRuns(batch: { claim: Claim; workerId: string }[]): Promise<StartResult[]> {
    const now = this.now();
    const values = sql.join(
      batch.map(({ claim, workerId }) => sql`(${claim.runId}, ${claim.token}, ${workerId})`),
      sql`, `,
    );
    return this.db.transaction(async (tx) => {
      // Only the first unfinished run of a session may start: the store itself keeps each
      // session serial and in order, whatever a queue or a lock may have got wrong.
      const rows = await tx.all<RunRow>(sql`
        UPDATE runs SET status = 'running', started_at = ${now}, heartbeat_at = ${now}, ended_at = NULL,
          worker_id = v.column3, claim_token = v.column2, attempt = attempt + 1, updated_at = ${now}
        FROM (VALUES ${values}) AS v
        WHERE runs.id = v.column1 AND runs.status = 'queued' AND NOT EXISTS (
          SELECT 1 FROM runs AS earlier WHERE earlier.session_id = runs.session_id
            AND earlier.queue_seq < runs.queue_seq AND earlier.status IN (${UNFINISHED}))
        RETURNING ${columns}`);
      const started = new Map(rows.map((r) => [r.id, r]));
      if (rows.length > 0) {
        await this.insertEvents(
          tx,
          rows.map((r) => ({
            runId: r.id,
            type: "run.started",
            data: { workerId: r.worker_id, attempt: r.attempt },
          })),
          now,
        );
      }
      const others = batch.filter((b) => !started.has(b.claim.runId)).map((b) => b.claim.runId);
      const statuses = new Map<string, RunStatus>();
      if (others.length > 0) {
        const found = await tx.all<{ id: string; status: RunStatus }>(
          sql`SELECT id, status FROM runs WHERE id IN (${sql.join(
            others.map((id) => sql`${id}`),
            sql`, `,
          )})`,
        );
        for (const f of found) statuses.set(f.id, f.status);
      }
      return batch.map(({ claim }): StartResult => {
        const row = started.get(claim.runId);
        if (row) return { kind: "started", run: this.run(row) };
        const status = statuses.get(claim.runId) ?? null;
        return status === "queued" ? { kind: "blocked" } : { kind: "gone", status };
      });
    });
  }

  async heartbeat(claims: Claim[]): Promise<HeartbeatResult> {
    if (claims.length === 0) return { fenced: [], cancelRequested: [] };
    const now = this.now();
    const pairs = sql.join(
      claims.map((c) => sql`(${c.runId}, ${c.token})`),
      sql`, `,
    );
    const rows = await this.db.all<{
      id: string;
      claim_token: string;
      cancel_requested_at: number | null;
    }>(sql`
      UPDATE runs SET heartbeat_at = ${now}
      WHERE status IN (${ACTIVE}) AND (id, claim_token) IN (VALUES ${pairs})
      RETURNING id, claim_token, cancel_requested_at`);
    const alive = new Set(rows.map((r) => `${r.id} ${r.claim_token}`));
    return {
      fenced: claims.filter((c) => !alive.has(`${c.runId} ${c.token}`)).map((c) => c.runId),
      cancelRequested: rows.filter((r) => r.cancel_requested_at !== null).map((r) => r.id),
    };
  }

  finishRun(claim: Claim, outcome: RunOutcome): Promise<Run | null> {
    return this.finishes.submit({ claim, outcome });
  }

  /** Ends a batch of runs in one transaction (group commit of concurrent ends); null where fenced out. */
  private async finishRuns(batch: { claim: Claim; outcome: RunOutcome }[]): Promise<(Run | null)[]> {
    const now = this.now();
    const values = sql.join(
      batch.map(
        ({ claim, outcome }) =>
          sql`(${claim.runId}, ${claim.token}, ${outcome.status}, ${outcome.output === undefined ? null : encodeJson(outcome.output)},
            ${outcome.errorCode ?? null}, ${outcome.errorMessage ?? null})`,
      ),
      sql`, `,
    );
    return this.db.transaction(async (tx) => {
      // Every terminal status is reached from an active one (SPEC §4), by the claim that started it.
      const rows = await tx.all<RunRow>(sql`
        UPDATE runs SET status = v.column3, output = ${tx.asJson(sql`v.column4`)}, error_code = v.column5,
          error_message = v.column6, ended_at = ${now}, updated_at = ${now}
        FROM (VALUES ${values}) AS v
        WHERE runs.id = v.column1 AND runs.claim_token = v.column2 AND runs.status IN (${ACTIVE})
        RETURNING ${columns}`);
      if (rows.length > 0) {
        await this.insertEvents(
          tx,
          rows.map((r) => ({
            runId: r.id,
            type: TERMINAL_EVENT[r.status as TerminalStatus],
            data: r.error_code ? { errorCode: r.error_code, errorMessage: r.error_message } : undefined,
          })),
          now,
        );
      }
      const ended = new Map(rows.map((r) => [r.id, r]));
      return batch.map(({ claim }) => {
        const row = ended.get(claim.runId);
        return row ? this.run(row) : null;
      });
    });
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
        sql`SELECT ${columns} FROM runs WHERE id = ${runId} ${tx.forUpdate}`,
      );
      if (!row) return { kind: "missing" } as const;
      if (row.status === "queued") {
        const [cancelled] =
          await tx.all<RunRow>(sql`UPDATE runs SET status = 'cancelled', cancel_requested_at = ${now},
            ended_at = ${now}, updated_at = ${now}
          WHERE id = ${runId} RETURNING ${columns}`);
        await this.insertEvent(tx, runId, "run.cancelled", now, { while: "queued" });
        return { kind: "cancelled", run: this.run(cancelled!) } as const;
      }
      if (row.status === "running" || row.status === "waiting_tool") {
        const [requested] = await tx.all<RunRow>(sql`UPDATE runs
          SET cancel_requested_at = COALESCE(cancel_requested_at, ${now}), updated_at = ${now}
          WHERE id = ${runId} RETURNING ${columns}`);
        return { kind: "requested", run: this.run(requested!) } as const;
      }
      return { kind: "terminal", run: this.run(row) } as const;
    });
  }

  async findStaleRuns(query: StaleRunQuery): Promise<Run[]> {
    const rows = await this.db.all<RunRow>(sql`SELECT ${columns} FROM runs
      WHERE status IN (${ACTIVE}) AND COALESCE(heartbeat_at, started_at, created_at) < ${query.lastSeenBefore}
      ORDER BY session_id, queue_seq LIMIT ${query.limit}`);
    return rows.map((r) => this.run(r));
  }

  async recoverRun(request: RecoveryRequest): Promise<RecoveredRun | null> {
    const now = this.now();
    const { decision, context } = request;
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<RunRow>(sql`SELECT ${columns} FROM runs
        WHERE id = ${request.runId} AND status IN (${ACTIVE})
          AND COALESCE(heartbeat_at, started_at, created_at) < ${request.lastSeenBefore}
        ${tx.forUpdate}`);
      if (!row) return null;
      const metadata = recordRecovery((tx.decodeJson(row.metadata) ?? {}) as RunMetadata, decision, {
        ...context,
        from: row.status as "running" | "waiting_tool",
      });
      const recovery = metadata.recovery!;
      // Steps the stale execution left open end with it.
      await tx.run(sql`UPDATE run_steps SET status = 'failed', ended_at = ${now}, error_code = 'worker_recovery_failed',
          error_message = 'the worker executing this step stopped responding'
        WHERE run_id = ${request.runId} AND status = 'running'`);
      // Clearing the claim token fences out the execution that went stale, should it wake up.
      if (decision.action === "requeue") {
        const [requeued] = await tx.all<RunRow>(sql`UPDATE runs SET status = 'queued', started_at = NULL,
            heartbeat_at = NULL, ended_at = NULL, cancel_requested_at = NULL, error_code = NULL, error_message = NULL,
            claim_token = NULL, recovery_state = ${recovery.state}, metadata = ${tx.json(metadata)},
            enqueued_at = ${now}, updated_at = ${now}
          WHERE id = ${request.runId} RETURNING ${columns}`);
        const data = { reason: recovery.reason, recoveryAttempts: recovery.attempts, from: row.status };
        await this.insertEvent(tx, request.runId, "run.requeued", now, data);
        await this.insertEvent(tx, request.runId, "run.queued", now, data);
        await tx.run(sql`INSERT INTO run_steps (run_id, kind, name, status, started_at, ended_at, output)
          VALUES (${request.runId}, 'system', 'run.requeued', 'completed', ${now}, ${now}, ${tx.json(data)})`);
        return {
          run: this.run(requeued!),
          queueEntry: entryOf(requeued!),
          previousClaimToken: row.claim_token,
        };
      }
      const message = `run was ${row.status} on a worker that stopped responding (${recovery.reason})`;
      const [failed] = await tx.all<RunRow>(sql`UPDATE runs SET status = 'failed',
          error_code = 'worker_recovery_failed', error_message = ${message}, ended_at = ${now}, claim_token = NULL,
          recovery_state = ${recovery.state}, metadata = ${tx.json(metadata)}, updated_at = ${now}
        WHERE id = ${request.runId} RETURNING ${columns}`);
      await this.insertEvent(tx, request.runId, "run.failed", now, {
        errorCode: "worker_recovery_failed",
        errorMessage: message,
        reason: recovery.reason,
        recoveryState: recovery.state,
      });
      return { run: this.run(failed!), queueEntry: null, previousClaimToken: row.claim_token };
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
