import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  customType,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";

// Times are epoch milliseconds in both dialects, so that one set of queries serves both.
const ms = (name: string) => bigint(name, { mode: "number" });

// A transaction id, as text: 64 bits, beyond what a JavaScript number holds exactly.
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    /** The workspace of the session's first run: every later run of the session is in it (docs/spec.md §3). */
    workspaceId: text("workspace_id").notNull(),
    lastSeq: integer("last_seq").notNull(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  // The key runs reference: a run in another workspace than its session's cannot be written.
  (t) => [uniqueIndex("sessions_id_workspace_uq").on(t.id, t.workspaceId)],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id").notNull(),
    seq: integer("seq").notNull(),
    queueSeq: integer("queue_seq").notNull(),
    workspaceId: text("workspace_id").notNull(),
    parentRunId: text("parent_run_id"),
    priority: text("priority").notNull(),
    executor: text("executor").notNull(),
    input: jsonb("input").notNull(),
    output: jsonb("output"),
    status: text("status").notNull(),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: ms("created_at").notNull(),
    enqueuedAt: ms("enqueued_at").notNull(),
    startedAt: ms("started_at"),
    heartbeatAt: ms("heartbeat_at"),
    endedAt: ms("ended_at"),
    cancelRequestedAt: ms("cancel_requested_at"),
    timeoutMs: integer("timeout_ms").notNull(),
    workerId: text("worker_id"),
    claimToken: text("claim_token"),
    attempt: integer("attempt").notNull().default(0),
    recoveryState: text("recovery_state"),
    /** The reason of the last recovery decision (docs/spec.md §7), and when it was taken: the overview reads these. */
    recoveryReason: text("recovery_reason"),
    recoveredAt: ms("recovered_at"),
    /** While waiting_tool: the tool the run waits for; and a result delivered but not yet taken. */
    waitingTool: text("waiting_tool"),
    toolResult: jsonb("tool_result"),
    /**
     * While parked in waiting_tool (docs/spec.md §6): since when, and what its executor saved to
     * go on from; the run holds no worker, no claim and no heartbeat meanwhile.
     */
    parkedAt: ms("parked_at"),
    parkedState: jsonb("parked_state"),
    metadata: jsonb("metadata").notNull(),
    idempotencyKey: text("idempotency_key"),
    /** A run made from another's checkpoint (docs/spec.md §7): that run, and the step it was made from. */
    forkedFrom: text("forked_from"),
    forkedFromStep: bigint("forked_from_step", { mode: "number" }),
    /** The submission's policy toward its busy session (docs/spec.md §5); null: enqueue, as before there was one. */
    ifBusy: text("if_busy"),
    /** Cancelled for a later submission (interrupted, replaced): why, and that run. */
    cancelReason: text("cancel_reason"),
    cancelledBy: text("cancelled_by"),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    foreignKey({
      name: "runs_session_workspace_fk",
      columns: [t.sessionId, t.workspaceId],
      foreignColumns: [sessions.id, sessions.workspaceId],
    }),
    uniqueIndex("runs_session_seq_uq").on(t.sessionId, t.seq),
    uniqueIndex("runs_session_idempotency_uq")
      .on(t.sessionId, t.idempotencyKey)
      .where(sql`idempotency_key IS NOT NULL`),
    // Unfinished runs of a session in queue order: the start guard and queue rebuilds read only these.
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
    // Parked runs by deadline: the maintenance task that times them out reads only the due ones.
    index("runs_parked_deadline_idx").on(sql`(started_at + timeout_ms)`).where(sql`parked_at IS NOT NULL`),
    // Parked runs whose result has arrived: they wait for a slot, as queued runs do.
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

export const runEvents = pgTable(
  "run_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    at: ms("at").notNull(),
    data: jsonb("data"),
    // The transaction that wrote the event: streams deliver events in commit order by it (ops/stream-events.ts).
    tx: xid8("tx").notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [index("run_events_run_idx").on(t.runId, t.id)],
);

export const runSteps = pgTable(
  "run_steps",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    status: text("status").notNull(),
    startedAt: ms("started_at").notNull(),
    endedAt: ms("ended_at"),
    output: jsonb("output"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    /** A command's: what recovery does when an execution dies while it runs (`rerun`, `fail`). */
    onInterrupt: text("on_interrupt"),
  },
  (t) => [index("run_steps_run_idx").on(t.runId, t.id)],
);

/**
 * What a run's execution saved after each completed step (docs/spec.md §7): the executor's state
 * then, and what it appends to the run's log (an agent's new messages), so that a checkpoint never
 * rewrites the conversation before it. A later attempt goes on from the last one: its state, and
 * the appends of all of them in order.
 */
export const runCheckpoints = pgTable(
  "run_checkpoints",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** The step whose end it was written with; null for one written on its own (a step without a row). */
    stepId: bigint("step_id", { mode: "number" }),
    attempt: integer("attempt").notNull(),
    at: ms("at").notNull(),
    state: jsonb("state").notNull(),
    appended: jsonb("appended"),
  },
  (t) => [index("run_checkpoints_run_idx").on(t.runId, t.id)],
);

/**
 * The overview's counts, kept as runs change instead of counted over a million rows
 * (counters: `status:<status>`, `recovery:<state>`, `quarantine:<reason>`,
 * `worker_recovery_failed`). Triggers on `runs` append each statement's net change
 * per counter (appending takes no lock that concurrent writers could wait on); the
 * store folds the rows together now and then. A counter is the sum of its rows.
 */
export const runCounts = pgTable("run_counts", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  counter: text("counter").notNull(),
  n: bigint("n", { mode: "number" }).notNull(),
});

/**
 * What operators did (docs/spec.md §13): one row per action, who (the token's name and role),
 * when, its target, its parameters and its outcome; kept OAH_AUDIT_RETENTION_DAYS.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: ms("at").notNull(),
    actor: text("actor").notNull(),
    role: text("role").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    params: jsonb("params"),
    outcome: jsonb("outcome").notNull(),
  },
  (t) => [
    index("audit_log_at_idx").on(t.at, t.id),
    index("audit_log_actor_idx").on(t.actor, t.at, t.id),
    index("audit_log_action_idx").on(t.action, t.at, t.id),
  ],
);

/**
 * Bulk actions by filter (docs/spec.md §9): the job, and the runs the filter matched when it
 * started (its items, each with what the job did to it once done). Whoever holds a running
 * job's lease works it; a lease that lapses (its API process died) is taken by another.
 */
export const bulkJobs = pgTable(
  "bulk_jobs",
  {
    id: text("id").primaryKey(),
    action: text("action").notNull(),
    filter: jsonb("filter").notNull(),
    /** Who started it: the caller's token's name. */
    requestedBy: text("requested_by").notNull(),
    /** The name the caller gave as who asks (`requestedBy` of its input), kept beside it. */
    claimedBy: text("claimed_by"),
    includeCancelled: integer("include_cancelled").notNull(),
    /** A requeue's: 1 when its runs start over from their first step, their checkpoints dropped. */
    fromStart: integer("from_start").notNull().default(0),
    status: text("status").notNull(),
    total: integer("total").notNull(),
    done: integer("done").notNull(),
    outcomes: jsonb("outcomes").notNull(),
    error: text("error"),
    startedAt: ms("started_at").notNull(),
    endedAt: ms("ended_at"),
    leaseOwner: text("lease_owner"),
    leaseUntil: ms("lease_until"),
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

export const bulkJobItems = pgTable(
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

/**
 * The model tokens each workspace spent, by the hour its calls ended (docs/spec.md §4): added to
 * with each model step's end, in its statement.
 */
export const modelUsage = pgTable(
  "model_usage",
  {
    workspaceId: text("workspace_id").notNull(),
    /** The hour's start, in ms since the epoch. */
    hour: ms("hour").notNull(),
    calls: integer("calls").notNull(),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull(),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.hour] })],
);
