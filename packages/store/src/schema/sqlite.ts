import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// The same tables as schema/pg.ts, column for column: times in epoch milliseconds, JSON as text.
const json = (name: string) => text(name, { mode: "json" });

export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  /** The workspace of the session's first run (see schema/pg.ts); a trigger refuses runs of another. */
  workspaceId: text("workspace_id").notNull().default(""),
  lastSeq: integer("last_seq").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    seq: integer("seq").notNull(),
    queueSeq: integer("queue_seq").notNull(),
    workspaceId: text("workspace_id").notNull(),
    parentRunId: text("parent_run_id"),
    priority: text("priority").notNull(),
    executor: text("executor").notNull(),
    input: json("input").notNull(),
    output: json("output"),
    status: text("status").notNull(),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: integer("created_at").notNull(),
    enqueuedAt: integer("enqueued_at").notNull(),
    startedAt: integer("started_at"),
    heartbeatAt: integer("heartbeat_at"),
    endedAt: integer("ended_at"),
    cancelRequestedAt: integer("cancel_requested_at"),
    timeoutMs: integer("timeout_ms").notNull(),
    workerId: text("worker_id"),
    claimToken: text("claim_token"),
    attempt: integer("attempt").notNull().default(0),
    recoveryState: text("recovery_state"),
    recoveryReason: text("recovery_reason"),
    recoveredAt: integer("recovered_at"),
    waitingTool: text("waiting_tool"),
    toolResult: json("tool_result"),
    parkedAt: integer("parked_at"),
    parkedState: json("parked_state"),
    metadata: json("metadata").notNull(),
    idempotencyKey: text("idempotency_key"),
    forkedFrom: text("forked_from"),
    forkedFromStep: integer("forked_from_step"),
    ifBusy: text("if_busy"),
    cancelReason: text("cancel_reason"),
    cancelledBy: text("cancelled_by"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("runs_session_seq_uq").on(t.sessionId, t.seq),
    uniqueIndex("runs_session_idempotency_uq")
      .on(t.sessionId, t.idempotencyKey)
      .where(sql`idempotency_key IS NOT NULL`),
    index("runs_session_unfinished_idx")
      .on(t.sessionId, t.queueSeq)
      .where(sql`status IN ('queued', 'running', 'waiting_tool')`),
    // Queued runs by how long they have waited: reconcile looks for the ones a queue lost.
    index("runs_queued_enqueued_idx").on(t.enqueuedAt).where(sql`status = 'queued'`),
    index("runs_created_idx").on(t.createdAt, t.id),
    index("runs_status_created_idx").on(t.status, t.createdAt, t.id),
    // Most runs have neither: no entry for them, and none to maintain on their every update.
    index("runs_error_code_created_idx")
      .on(t.errorCode, t.createdAt, t.id)
      .where(sql`error_code IS NOT NULL`),
    index("runs_recovery_state_created_idx")
      .on(t.recoveryState, t.createdAt, t.id)
      .where(sql`recovery_state IS NOT NULL`),
    // The overview's recovery times: the first and last of a state, one index lookup each.
    index("runs_recovery_time_idx").on(t.recoveryState, t.recoveredAt).where(sql`recovery_state IS NOT NULL`),
    index("runs_parked_deadline_idx").on(sql`(started_at + timeout_ms)`).where(sql`parked_at IS NOT NULL`),
    index("runs_resumable_idx")
      .on(t.enqueuedAt)
      .where(sql`parked_at IS NOT NULL AND tool_result IS NOT NULL`),
    // The runs made from a run's checkpoints, for its page: few runs have one.
    index("runs_forked_from_idx").on(t.forkedFrom).where(sql`forked_from IS NOT NULL`),
    index("runs_active_heartbeat_idx")
      .on(t.status, t.heartbeatAt)
      .where(sql`status IN ('running', 'waiting_tool')`),
  ],
);

export const runEvents = sqliteTable(
  "run_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    at: integer("at").notNull(),
    data: json("data"),
  },
  (t) => [index("run_events_run_idx").on(t.runId, t.id)],
);

export const runSteps = sqliteTable(
  "run_steps",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    status: text("status").notNull(),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at"),
    output: json("output"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    onInterrupt: text("on_interrupt"),
  },
  (t) => [index("run_steps_run_idx").on(t.runId, t.id)],
);

/** What a run's execution saved after each completed step (see schema/pg.ts). */
export const runCheckpoints = sqliteTable(
  "run_checkpoints",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    stepId: integer("step_id"),
    attempt: integer("attempt").notNull(),
    at: integer("at").notNull(),
    state: json("state").notNull(),
    appended: json("appended"),
  },
  (t) => [index("run_checkpoints_run_idx").on(t.runId, t.id)],
);

/**
 * The overview's counts, kept as runs change instead of counted over a million rows
 * (counters: `status:<status>`, `recovery:<state>`, `quarantine:<reason>`,
 * `worker_recovery_failed`): one row per counter, kept by triggers on `runs`
 * (SQLite has a single writer, so no writer waits on another for it).
 */
export const runCounts = sqliteTable("run_counts", {
  counter: text("counter").primaryKey(),
  n: integer("n").notNull(),
});

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    actor: text("actor").notNull(),
    role: text("role").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    params: json("params"),
    outcome: json("outcome").notNull(),
  },
  (t) => [
    index("audit_log_at_idx").on(t.at, t.id),
    index("audit_log_actor_idx").on(t.actor, t.at, t.id),
    index("audit_log_action_idx").on(t.action, t.at, t.id),
  ],
);

export const bulkJobs = sqliteTable(
  "bulk_jobs",
  {
    id: text("id").primaryKey(),
    action: text("action").notNull(),
    filter: json("filter").notNull(),
    /** Who started it: the caller's token's name. */
    requestedBy: text("requested_by").notNull(),
    /** The name the caller gave as who asks (`requestedBy` of its input), kept beside it. */
    claimedBy: text("claimed_by"),
    includeCancelled: integer("include_cancelled").notNull(),
    fromStart: integer("from_start").notNull().default(0),
    status: text("status").notNull(),
    total: integer("total").notNull(),
    done: integer("done").notNull(),
    outcomes: json("outcomes").notNull(),
    error: text("error"),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at"),
    leaseOwner: text("lease_owner"),
    leaseUntil: integer("lease_until"),
    /**
     * 1 while the runs its filter matched are still being written as its items, a page per
     * transaction (the runs created up to its start): whoever holds its lease goes on with them.
     */
    matching: integer("matching").notNull().default(0),
  },
  (t) => [
    index("bulk_jobs_started_idx").on(t.startedAt),
    index("bulk_jobs_running_idx").on(t.leaseUntil).where(sql`status = 'running'`),
  ],
);

export const bulkJobItems = sqliteTable(
  "bulk_job_items",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => bulkJobs.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    runId: text("run_id").notNull(),
    outcome: text("outcome"),
    message: text("message"),
  },
  (t) => [
    // Items are done in order, a chunk at a time: the ones to do are those after the job's
    // `done`, a range of this key (the job's size never enters a chunk's cost).
    primaryKey({ columns: [t.jobId, t.position] }),
    index("bulk_job_items_outcome_idx").on(t.jobId, t.outcome, t.position),
  ],
);

export const modelUsage = sqliteTable(
  "model_usage",
  {
    workspaceId: text("workspace_id").notNull(),
    hour: integer("hour").notNull(),
    calls: integer("calls").notNull(),
    promptTokens: integer("prompt_tokens").notNull(),
    completionTokens: integer("completion_tokens").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.hour] })],
);
