import type {
  AuditEntry,
  BulkJob,
  BulkJobItem,
  DeadLetters,
  Run,
  RunEvent,
  RunStep,
  RunSummary,
  StorageOverview,
} from "@oah/contract";
import { sameSubmission } from "@oah/contract";
import {
  type ActiveStatus,
  batchRefusal,
  checkManualRequeue,
  isActive,
  type QueueEntry,
  REQUEUED,
  type RecoveryState,
  type RunEventType,
  type RunMetadata,
  type RunStatus,
  recordManualRequeue,
  recordRecovery,
  requireWriteTarget,
  runTimedOutError,
  STATUS_WRITES,
  type StatusWriteName,
  writeTarget,
} from "@oah/core";
import { cancelOutcomeOf } from "../ops/bulk-jobs";
import { batchConflict } from "../ops/create-runs";
import { DEAD_LETTER_EXECUTIONS, groupDeadLetters } from "../ops/dead-letters";
import { countersOf, overviewOf, type RecoveryTimes } from "../overview";
import {
  decodeEvent,
  decodeMetadata,
  decodeRun,
  decodeRunSummary,
  decodeStep,
  entryOf,
  iso,
  type JsonDecoder,
  type StepRow,
} from "../rows";
import type {
  AuditQuery,
  AwaitingSlotPage,
  BulkChunk,
  BulkItemQuery,
  CancelRequest,
  Claim,
  EventPosition,
  EventScope,
  EventStreamPage,
  HeartbeatResult,
  ManualRequeueOutcome,
  ManualRequeueRequest,
  NewAuditEntry,
  NewBulkJob,
  NewRun,
  Park,
  ParkResult,
  RecoveredRun,
  RecoveryRequest,
  ResumePoint,
  RunOutcome,
  RunStore,
  StaleRunQuery,
  StartResult,
  StepEnd,
  StepStart,
  StorageRunQuery,
  SubmissionOutcome,
  ToolResultDelivery,
  ToolResultTake,
  WorkspaceActivity,
} from "../run-store";
import {
  type HeartbeatRow,
  heartbeatResult,
  lockedStaleRun,
  manualRequeueData,
  manualRequeueFacts,
  REQUEUE_STEP,
  recoveredCancelData,
  recoveryFailure,
  recoveryRequeueData,
  refusedStart,
  STALE_STEP_FAILURE,
  sessionOwners,
  workspaceMismatch,
} from "../run-writes";
import { encodeJson } from "../sql/client";
import { type FilterCondition, filterConditions, storageQueryOf } from "../storage-filters";
import { endEvent, startData } from "../transitions";
import { compareText, fromJson, MemoryTables, type RunRecord, toJson } from "./tables";

export interface MemoryRunStoreOptions {
  now?: () => number;
}

/** Typed writes of columns. */
const setRun = (row: RunRecord, columns: Partial<RunRecord>) => Object.assign(row, columns);
const setStep = (step: StepRow, columns: Partial<StepRow>) => Object.assign(step, columns);
const unfinished = (status: string) => status === "queued" || isActive(status as RunStatus);
/** Whether a run's column meets a Storage filter, as the SQL stores' WHERE has it. */
function matches({ match, value }: FilterCondition, column: string | number | null | undefined): boolean {
  if (column === null || column === undefined) return false;
  if (match === "anyOf") return (value as readonly string[]).includes(String(column));
  if (match === "atLeast") return column >= value;
  if (match === "below") return column < value;
  return column === value;
}
/** JSON columns are kept as text, as SQLite keeps them, and read back the same way. */
const JSON_TEXT: JsonDecoder = { decodeJson: fromJson };
/** Whether a status write (core's STATUS_WRITES, the SQL stores' guards too) may move this run. */
const movable = (write: StatusWriteName, row: RunRecord): boolean =>
  (STATUS_WRITES[write].from as readonly string[]).includes(row.status);
/** A run awaiting a slot: queued, or parked with its tool result (to be resumed). */
const awaitsSlot = (row: RunRecord) =>
  row.status === "queued" || (row.parked_at !== null && row.tool_result !== null);
/** The columns a parked run gives up when it resumes or ends. */
const UNPARKED = { parked_at: null, parked_state: null, waiting_tool: null, tool_result: null } as const;
/** When an active run last showed life: its heartbeat, else its start, else its submission. */
const lastSeen = (row: RunRecord) => row.heartbeat_at ?? row.started_at ?? row.created_at;

/**
 * The RunStore in this process's memory, for unit tests of the engine: the semantics
 * of the SQL stores (their contract suite runs on it too) without a database. Every
 * call reads and writes its tables without yielding, so each is one transaction.
 * Not a deployment mode: its runs live as long as the object.
 */
export class MemoryRunStore implements RunStore {
  readonly dialect = "memory";
  private readonly now: () => number;
  private tables: MemoryTables | null = new MemoryTables();

  constructor(options: MemoryRunStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  private get db(): MemoryTables {
    if (!this.tables) throw new Error("the in-memory run store is closed");
    return this.tables;
  }

  private run(row: RunRecord): Run {
    return decodeRun(row, JSON_TEXT);
  }

  private metadataOf(row: RunRecord): RunMetadata {
    return decodeMetadata(row, JSON_TEXT);
  }

  /** The fence every execution write passes: the run is still active and still this claim's. */
  private owned(claim: Claim): RunRecord | undefined {
    const row = this.db.runs.get(claim.runId);
    return row && row.claim_token === claim.token && isActive(row.status as RunStatus) ? row : undefined;
  }

  async createRun(input: NewRun): Promise<{ run: Run; created: boolean; queueEntry: QueueEntry }> {
    const db = this.db;
    const now = this.now();
    const session = db.sessions.get(input.sessionId);
    if (session && session.workspace_id !== input.workspaceId) throw workspaceMismatch(input);
    if (input.idempotencyKey !== null) {
      const existing = db.runsOf(input.sessionId).find((r) => r.idempotency_key === input.idempotencyKey);
      if (existing) return { run: this.run(existing), created: false, queueEntry: entryOf(existing) };
    }
    const row = newRunRecord(input, (session?.last_seq ?? 0) + 1, now);
    db.insertRun(row);
    db.sessions.set(input.sessionId, {
      id: input.sessionId,
      workspace_id: input.workspaceId,
      last_seq: row.seq,
      created_at: session?.created_at ?? now,
      updated_at: now,
    });
    db.insertEvent(row.id, "run.queued", now, { seq: row.seq, priority: input.priority });
    return { run: this.run(row), created: true, queueEntry: entryOf(row) };
  }

  async createRuns(inputs: readonly NewRun[], { atomic }: { atomic: boolean }): Promise<SubmissionOutcome[]> {
    const owners = sessionOwners(
      inputs,
      new Map([...this.db.sessions.values()].map((s) => [s.id, s.workspace_id])),
    );
    const refused = (input: NewRun) => owners.get(input.sessionId) !== input.workspaceId;
    if (atomic) {
      // Nothing is written when a submission is refused or a key conflicts: they are found first.
      const first = inputs.findIndex(refused);
      if (first >= 0) throw batchRefusal(first, workspaceMismatch(inputs[first]!));
      const earlier = new Map<string, { index: number; run: Run }>();
      const conflicts = inputs.flatMap((input, index) => {
        if (input.idempotencyKey === null) return [];
        const key = JSON.stringify([input.sessionId, input.idempotencyKey]);
        const stored = this.db
          .runsOf(input.sessionId)
          .find((r) => r.idempotency_key === input.idempotencyKey);
        const before = stored ? { index: -1, run: this.run(stored) } : earlier.get(key);
        if (!before) earlier.set(key, { index, run: this.run(newRunRecord(input, 0, this.now())) });
        if (!before || sameSubmission(before.run, input)) return [];
        const named = before.index < 0 ? before.run.id : `runs[${before.index}]`;
        return [{ index, earlier: named, sessionId: input.sessionId }];
      });
      if (conflicts.length > 0) throw batchConflict(conflicts);
    }
    const outcomes: SubmissionOutcome[] = [];
    for (const input of inputs) {
      if (refused(input)) {
        outcomes.push({ refused: workspaceMismatch(input) });
        continue;
      }
      const made = await this.createRun(input);
      outcomes.push(made.created || sameSubmission(made.run, input) ? made : { conflict: made.run });
    }
    return outcomes;
  }

  async getRun(runId: string): Promise<Run | null> {
    const row = this.db.runs.get(runId);
    return row ? this.run(row) : null;
  }

  async listSessionRuns(sessionId: string, page: { after?: number; limit: number }): Promise<Run[]> {
    return this.db
      .runsOf(sessionId)
      .filter((r) => r.seq > (page.after ?? 0))
      .slice(0, page.limit)
      .map((r) => this.run(r));
  }

  async listRunEvents(runId: string, page: { after?: number; limit: number }): Promise<RunEvent[]> {
    return this.db
      .eventsOf(runId)
      .filter((e) => e.id > (page.after ?? 0))
      .slice(0, page.limit)
      .map((e) => decodeEvent(e, JSON_TEXT));
  }

  async eventPosition(scope: EventScope, eventId: number): Promise<ResumePoint | null> {
    const event = this.eventsIn(scope).find((e) => e.id === eventId);
    return event ? { position: { tx: "0", id: eventId }, type: event.type as RunEventType } : null;
  }

  // One process writes these tables, one event at a time: ids are in commit order.
  async streamEvents(scope: EventScope, after: EventPosition, limit: number): Promise<EventStreamPage> {
    const rows = this.eventsIn(scope)
      .filter((e) => e.id > after.id)
      .sort((a, b) => a.id - b.id)
      .slice(0, limit);
    const last = rows[rows.length - 1];
    return {
      events: rows.map((e) => decodeEvent(e, JSON_TEXT)),
      last: last ? { tx: "0", id: last.id } : null,
      unsettled: false,
      full: rows.length === limit,
    };
  }

  private eventsIn(scope: EventScope) {
    if ("runId" in scope) return this.db.eventsOf(scope.runId);
    return this.db.runsOf(scope.sessionId).flatMap((r) => this.db.eventsOf(r.id));
  }

  async listRunSteps(runId: string): Promise<RunStep[]> {
    return this.db.stepsOf(runId).map((s) => decodeStep(s, JSON_TEXT));
  }

  async previousOutput(sessionId: string, beforeSeq: number, executor: string): Promise<unknown> {
    const previous = this.db
      .runsOf(sessionId)
      .filter((r) => r.seq < beforeSeq && r.executor === executor && r.status === "completed")
      .at(-1);
    return previous ? (fromJson(previous.output) ?? null) : null;
  }

  async listAwaitingSlot(page: AwaitingSlotPage): Promise<QueueEntry[]> {
    const after = "after" in page ? page.after : undefined;
    const enqueuedBefore = "enqueuedBefore" in page ? page.enqueuedBefore : undefined;
    const inQueueOrder = (a: RunRecord, b: RunRecord) =>
      compareText(a.session_id, b.session_id) || a.queue_seq - b.queue_seq;
    const rows = [...this.db.runs.values()].filter(
      (r) =>
        awaitsSlot(r) &&
        (!after ||
          inQueueOrder(r, { session_id: after.sessionId, queue_seq: after.queueSeq } as RunRecord) > 0) &&
        (enqueuedBefore === undefined || r.enqueued_at < enqueuedBefore),
    );
    rows.sort(
      enqueuedBefore === undefined
        ? inQueueOrder
        : (a, b) => a.enqueued_at - b.enqueued_at || inQueueOrder(a, b),
    );
    return rows.slice(0, page.limit).map(entryOf);
  }

  /**
   * Only the first unfinished run of a session may start: the store itself keeps each
   * session serial and in order, whatever a queue or a lock may have got wrong; and only
   * from `queued`, so never twice at once.
   */
  async startRun(claim: Claim, workerId: string): Promise<StartResult> {
    const db = this.db;
    const now = this.now();
    const row = db.runs.get(claim.runId);
    if (!row) return refusedStart(null);
    const earlierUnfinished = db
      .runsOf(row.session_id)
      .some((r) => r.queue_seq < row.queue_seq && unfinished(r.status));
    if (!movable("start", row) || earlierUnfinished) return refusedStart(row.status as RunStatus);
    setRun(row, {
      status: writeTarget("start"),
      started_at: now,
      heartbeat_at: now,
      ended_at: null,
      worker_id: workerId,
      claim_token: claim.token,
      attempt: row.attempt + 1,
      updated_at: now,
    });
    db.insertEvent(row.id, "run.started", now, startData(row));
    return { kind: "started", run: this.run(row) };
  }

  /** Every terminal status is reached from an active one (docs/spec.md §4), and only by the claim that started the run. */
  async finishRun(claim: Claim, outcome: RunOutcome): Promise<RunSummary | null> {
    requireWriteTarget("finish", outcome.status);
    const db = this.db;
    const now = this.now();
    const row = this.owned(claim);
    if (!row || !movable("finish", row)) return null;
    setRun(row, {
      status: outcome.status,
      output: outcome.output === undefined ? null : encodeJson(outcome.output),
      error_code: outcome.errorCode ?? null,
      error_message: outcome.errorMessage ?? null,
      ended_at: now,
      updated_at: now,
    });
    const { type, data } = endEvent(row);
    db.insertEvent(row.id, type, now, data);
    return decodeRunSummary(row, JSON_TEXT);
  }

  async heartbeat(claims: Claim[]): Promise<HeartbeatResult> {
    const now = this.now();
    const reached = new Map<string, HeartbeatRow>();
    for (const claim of claims) {
      const row = this.owned(claim);
      if (!row || reached.has(row.id)) continue;
      row.heartbeat_at = now;
      reached.set(row.id, {
        id: row.id,
        claim_token: claim.token,
        cancel_requested_at: row.cancel_requested_at,
        has_tool_result: row.tool_result !== null,
      });
    }
    return heartbeatResult(claims, [...reached.values()]);
  }

  async appendEvent(claim: Claim, type: RunEventType, data?: Record<string, unknown>): Promise<boolean> {
    if (!this.owned(claim)) return false;
    this.db.insertEvent(claim.runId, type, this.now(), data);
    return true;
  }

  async startStep(claim: Claim, step: StepStart): Promise<number | null> {
    if (!this.owned(claim)) return null;
    return this.db.insertStep({
      run_id: claim.runId,
      kind: step.kind,
      name: step.name,
      status: "running",
      started_at: step.at ?? this.now(),
      ended_at: null,
      output: null,
      error_code: null,
      error_message: null,
    });
  }

  async updateStepOutput(claim: Claim, stepId: number, output: unknown): Promise<boolean> {
    const step = this.db.step(stepId);
    if (!step || step.run_id !== claim.runId || step.status !== "running" || !this.owned(claim)) return false;
    step.output = toJson(output);
    return true;
  }

  async finishStep(claim: Claim, stepId: number, end: StepEnd): Promise<boolean> {
    const step = this.db.step(stepId);
    if (!step || step.run_id !== claim.runId || !this.owned(claim)) return false;
    setStep(step, {
      status: end.status,
      ended_at: this.now(),
      output: toJson(end.output),
      error_code: end.errorCode ?? null,
      error_message: end.errorMessage ?? null,
    });
    return true;
  }

  async requestCancel(runId: string): Promise<CancelRequest> {
    const db = this.db;
    const now = this.now();
    const row = db.runs.get(runId);
    if (!row) return { kind: "missing" };
    if (movable("cancelQueued", row)) {
      setRun(row, {
        status: writeTarget("cancelQueued"),
        cancel_requested_at: now,
        ended_at: now,
        updated_at: now,
      });
      db.insertEvent(runId, "run.cancelled", now, { while: "queued" });
      return { kind: "cancelled", run: this.run(row), parked: false };
    }
    if (row.parked_at !== null && movable("cancelParked", row)) {
      // Nobody executes a parked run: it ends here.
      setRun(row, {
        status: writeTarget("cancelParked"),
        ...UNPARKED,
        cancel_requested_at: now,
        ended_at: now,
        updated_at: now,
      });
      db.insertEvent(runId, "run.cancelled", now, { while: "parked" });
      return { kind: "cancelled", run: this.run(row), parked: true };
    }
    if (isActive(row.status as RunStatus)) {
      setRun(row, { cancel_requested_at: row.cancel_requested_at ?? now, updated_at: now });
      return { kind: "requested", run: this.run(row) };
    }
    return { kind: "terminal", run: this.run(row) };
  }

  async waitForTool(claim: Claim, name: string): Promise<boolean> {
    const now = this.now();
    const row = this.db.runs.get(claim.runId);
    if (row?.claim_token !== claim.token || !movable("waitForTool", row)) return false;
    setRun(row, {
      status: writeTarget("waitForTool"),
      waiting_tool: name,
      tool_result: null,
      updated_at: now,
    });
    this.db.insertEvent(claim.runId, "run.waiting_tool", now, { name });
    return true;
  }

  async deliverToolResult(runId: string, name: string, output: unknown): Promise<ToolResultDelivery> {
    const row = this.db.runs.get(runId);
    if (!row) return { kind: "unknown_run" };
    if (row.status !== "waiting_tool" || row.tool_result !== null) {
      return { kind: "not_waiting", status: row.status as RunStatus, waitingTool: row.waiting_tool };
    }
    if (row.waiting_tool !== name) return { kind: "wrong_name", waitingTool: row.waiting_tool ?? "" };
    const now = this.now();
    // Stored wrapped, so that a JSON null result is told apart from "no result yet". A parked run
    // now awaits a slot: its wait for one starts here.
    setRun(row, {
      tool_result: encodeJson({ value: output }),
      enqueued_at: row.parked_at === null ? row.enqueued_at : now,
      updated_at: now,
    });
    return { kind: "accepted", run: this.run(row), resume: row.parked_at === null ? null : entryOf(row) };
  }

  async takeToolResult(claim: Claim): Promise<ToolResultTake> {
    const now = this.now();
    const row = this.db.runs.get(claim.runId);
    if (row?.claim_token !== claim.token || !movable("resumeWithToolResult", row)) return { kind: "fenced" };
    if (row.tool_result === null) return { kind: "pending" };
    const { value } = fromJson(row.tool_result) as { value: unknown };
    const name = row.waiting_tool;
    setRun(row, {
      status: writeTarget("resumeWithToolResult"),
      waiting_tool: null,
      tool_result: null,
      updated_at: now,
    });
    this.db.insertEvent(claim.runId, "run.resumed", now, { name });
    return { kind: "taken", output: value };
  }

  async parkRun(claim: Claim, park: Park): Promise<ParkResult> {
    const now = this.now();
    const row = this.db.runs.get(claim.runId);
    if (row?.claim_token !== claim.token || !movable("park", row)) return "fenced";
    if (row.cancel_requested_at !== null) return "cancel_requested";
    setRun(row, {
      status: writeTarget("park"),
      waiting_tool: park.tool,
      tool_result: null,
      parked_at: now,
      parked_state: encodeJson(park.state ?? null),
      worker_id: null,
      claim_token: null,
      updated_at: now,
    });
    this.db.insertEvent(claim.runId, "run.waiting_tool", now, { name: park.tool, parked: true });
    return "parked";
  }

  async resumeRun(claim: Claim, workerId: string): Promise<StartResult> {
    const now = this.now();
    const row = this.db.runs.get(claim.runId);
    if (!row) return { kind: "gone", status: null };
    if (row.parked_at === null || row.tool_result === null || !movable("resumeParked", row))
      return { kind: "gone", status: row.status as RunStatus };
    const resumed = {
      tool: row.waiting_tool ?? "",
      state: fromJson(row.parked_state) ?? null,
      toolResult: (fromJson(row.tool_result) as { value: unknown }).value,
    };
    setRun(row, {
      status: writeTarget("resumeParked"),
      ...UNPARKED,
      worker_id: workerId,
      claim_token: claim.token,
      heartbeat_at: now,
      updated_at: now,
    });
    this.db.insertEvent(claim.runId, "run.resumed", now, { name: resumed.tool, workerId, parked: true });
    return { kind: "started", run: this.run(row), resumed };
  }

  async expireParkedRuns(limit: number): Promise<Run[]> {
    const now = this.now();
    const deadline = (r: RunRecord) => (r.started_at ?? r.created_at) + r.timeout_ms;
    const due = [...this.db.runs.values()]
      .filter((r) => r.parked_at !== null && movable("timeOutParked", r) && deadline(r) < now)
      .sort((a, b) => deadline(a) - deadline(b))
      .slice(0, limit);
    return due.map((row) => {
      const error = runTimedOutError(row.timeout_ms);
      setRun(row, {
        status: writeTarget("timeOutParked"),
        ...UNPARKED,
        error_code: error.errorCode,
        error_message: error.errorMessage,
        ended_at: now,
        updated_at: now,
      });
      this.db.insertEvent(row.id, "run.timed_out", now, { ...error, while: "parked" });
      return this.run(row);
    });
  }

  async requeueRuns(
    runIds: readonly string[],
    request: ManualRequeueRequest,
  ): Promise<ManualRequeueOutcome[]> {
    return runIds.map((runId) => this.requeueRun(runId, request));
  }

  private requeueRun(runId: string, request: ManualRequeueRequest): ManualRequeueOutcome {
    const db = this.db;
    const { by, claimedBy, maxAttempts } = request;
    const now = this.now();
    const row = db.runs.get(runId);
    if (!row) return { runId, ok: false, code: "run_not_found", message: `no run with id ${runId}` };
    const metadata = this.metadataOf(row);
    const status = row.status as RunStatus;
    const check = checkManualRequeue(manualRequeueFacts(row, metadata), request.includeCancelled);
    if (!check.ok) return { runId, ok: false, code: check.code, message: check.message };
    const next = recordManualRequeue(metadata, {
      from: status,
      by,
      claimedBy,
      at: new Date(now),
      maxAttempts,
    });
    // The tail of its session: a fresh position from the session's counter.
    const session = db.sessions.get(row.session_id)!;
    Object.assign(session, { last_seq: session.last_seq + 1, updated_at: now });
    setRun(row, {
      status: writeTarget("manualRequeue"),
      queue_seq: session.last_seq,
      output: null,
      error_code: null,
      error_message: null,
      started_at: null,
      heartbeat_at: null,
      ended_at: null,
      cancel_requested_at: null,
      claim_token: null,
      waiting_tool: null,
      tool_result: null,
      recovery_state: "requeued",
      recovery_reason: "manual_operator_requeue",
      metadata: encodeJson(next),
      enqueued_at: now,
      updated_at: now,
    });
    const data = manualRequeueData(by, claimedBy, status);
    this.recordRequeue(row, now, data);
    return { runId, ok: true, previousStatus: status, queueEntry: entryOf(row) };
  }

  /** The events and the system step of a requeue. */
  private recordRequeue(row: RunRecord, now: number, data: Record<string, unknown>): void {
    this.db.insertEvent(row.id, "run.requeued", now, data);
    this.db.insertEvent(row.id, "run.queued", now, data);
    this.db.insertStep({
      run_id: row.id,
      ...REQUEUE_STEP,
      started_at: now,
      ended_at: now,
      output: toJson(data),
      error_code: null,
      error_message: null,
    });
  }

  async listRuns(query: StorageRunQuery): Promise<RunSummary[]> {
    const filters = filterConditions(query);
    const { after } = query;
    const newestFirst = (a: RunRecord, b: RunRecord) =>
      b.created_at - a.created_at || compareText(b.id, a.id);
    return [...this.db.runs.values()]
      .filter(
        (r) =>
          filters.every((f) =>
            matches(f, (r as unknown as Record<string, string | number | null>)[f.column]),
          ) &&
          (!after || r.created_at < after.createdAt || (r.created_at === after.createdAt && r.id < after.id)),
      )
      .sort(newestFirst)
      .slice(0, query.limit)
      .map((r) => decodeRunSummary(r, JSON_TEXT));
  }

  async overview(): Promise<StorageOverview> {
    const counters = new Map<string, number>();
    const times: RecoveryTimes = { oldestQuarantined: null, newest: {} };
    for (const row of this.db.runs.values()) {
      for (const counter of countersOf(row)) counters.set(counter, (counters.get(counter) ?? 0) + 1);
      const state = row.recovery_state as RecoveryState | null;
      const at = row.recovered_at;
      if (state === null || at === null) continue;
      times.newest[state] = Math.max(times.newest[state] ?? at, at);
      if (state === "quarantined") times.oldestQuarantined = Math.min(times.oldestQuarantined ?? at, at);
    }
    return overviewOf(counters, times);
  }

  async awaitingSlot(runIds: readonly string[]): Promise<Set<string>> {
    return new Set(
      runIds.filter((id) => {
        const row = this.db.runs.get(id);
        return row !== undefined && awaitsSlot(row);
      }),
    );
  }

  async countAwaitingSlot(): Promise<number> {
    let n = 0;
    for (const row of this.db.runs.values()) if (awaitsSlot(row)) n++;
    return n;
  }

  async activeByWorkspace(): Promise<WorkspaceActivity[]> {
    const byWorkspace = new Map<string, WorkspaceActivity>();
    for (const row of this.db.runs.values()) {
      if (!isActive(row.status as RunStatus)) continue;
      const activity = byWorkspace.get(row.workspace_id) ?? {
        workspaceId: row.workspace_id,
        executingRuns: 0,
        parkedRuns: 0,
      };
      activity[row.parked_at === null ? "executingRuns" : "parkedRuns"]++;
      byWorkspace.set(row.workspace_id, activity);
    }
    return [...byWorkspace.values()].sort((a, b) => compareText(a.workspaceId, b.workspaceId));
  }

  async claimHolders(locks: readonly { sessionId: string; token: string }[]): Promise<Map<string, Run>> {
    const holders = new Map<string, Run>();
    for (const row of this.db.runs.values()) {
      if (row.claim_token === null || !isActive(row.status as RunStatus)) continue;
      if (locks.some((l) => l.sessionId === row.session_id && l.token === row.claim_token))
        holders.set(row.claim_token, this.run(row));
    }
    return holders;
  }

  async behindUnfinished(runIds: readonly string[]): Promise<Set<string>> {
    const rows = [...this.db.runs.values()];
    return new Set(
      runIds.filter((id) => {
        const later = this.db.runs.get(id);
        return (
          later !== undefined &&
          rows.some(
            (r) => r.session_id === later.session_id && r.queue_seq < later.queue_seq && unfinished(r.status),
          )
        );
      }),
    );
  }

  async findStaleRuns(query: StaleRunQuery): Promise<Run[]> {
    const { after } = query;
    const bySessionThenId = (a: RunRecord, b: RunRecord) =>
      compareText(a.session_id, b.session_id) || compareText(a.id, b.id);
    return [...this.db.runs.values()]
      .filter(
        (r) =>
          isActive(r.status as RunStatus) &&
          r.parked_at === null &&
          lastSeen(r) < query.lastSeenBefore &&
          (!after || bySessionThenId(r, { session_id: after.sessionId, id: after.id } as RunRecord) > 0),
      )
      .sort(bySessionThenId)
      .slice(0, query.limit)
      .map((r) => this.run(r));
  }

  async recoverRun(request: RecoveryRequest): Promise<RecoveredRun | null> {
    const db = this.db;
    const now = this.now();
    const { context } = request;
    const row = db.runs.get(request.runId);
    // Every recovery write (requeue, fail, cancel) moves a run from the same, active, statuses.
    if (
      !row ||
      !movable("recoveryRequeue", row) ||
      row.parked_at !== null ||
      lastSeen(row) >= request.lastSeenBefore
    )
      return null;
    const from = row.status as ActiveStatus;
    const stored = this.metadataOf(row);
    const decision = request.decide(lockedStaleRun(row, stored));
    if (decision.action === "wait") return null;
    const previousClaimToken = row.claim_token;
    // Steps the stale execution left open end with it.
    for (const step of db.stepsOf(row.id)) {
      if (step.status !== "running") continue;
      setStep(step, {
        status: STALE_STEP_FAILURE.status,
        ended_at: now,
        error_code: STALE_STEP_FAILURE.errorCode,
        error_message: STALE_STEP_FAILURE.errorMessage,
      });
    }
    // Clearing the claim token fences out the execution that went stale, should it wake up.
    const unclaimed = { claim_token: null, waiting_tool: null, tool_result: null, updated_at: now };
    if (decision.action === "cancel") {
      setRun(row, { status: writeTarget("recoveryCancel"), ended_at: now, ...unclaimed });
      db.insertEvent(row.id, "run.cancelled", now, recoveredCancelData(context.by, from));
      return { run: this.run(row), action: decision, queueEntry: null, previousClaimToken };
    }
    // One clock for the columns and the metadata: the overview's times match deadLetter.at.
    const metadata = recordRecovery(stored, decision, { ...context, at: new Date(now), from });
    const recovery = metadata.recovery!;
    const recovered = {
      recovery_state: recovery.state,
      recovery_reason: recovery.reason,
      recovered_at: now,
      metadata: encodeJson(metadata),
    };
    if (decision.action === "requeue") {
      setRun(row, {
        status: writeTarget("recoveryRequeue"),
        started_at: null,
        heartbeat_at: null,
        ended_at: null,
        cancel_requested_at: null,
        error_code: null,
        error_message: null,
        ...unclaimed,
        ...recovered,
        enqueued_at: now,
      });
      this.recordRequeue(row, now, recoveryRequeueData(recovery, from));
      return { run: this.run(row), action: decision, queueEntry: entryOf(row), previousClaimToken };
    }
    const failure = recoveryFailure(from, recovery);
    setRun(row, {
      status: writeTarget("recoveryFail"),
      error_code: failure.errorCode,
      error_message: failure.errorMessage,
      ended_at: now,
      ...unclaimed,
      ...recovered,
    });
    db.insertEvent(row.id, "run.failed", now, failure.data);
    return { run: this.run(row), action: decision, queueEntry: null, previousClaimToken };
  }

  async recordAudit(entry: NewAuditEntry): Promise<void> {
    this.db.audit.push({
      id: ++this.db.lastAuditId,
      at: iso(this.now()),
      actor: entry.actor.name,
      role: entry.actor.role,
      action: entry.action,
      target: entry.target,
      // Kept as the SQL stores keep it: a copy, through JSON.
      params: entry.params === undefined ? null : fromJson(toJson(entry.params)),
      outcome: fromJson(toJson(entry.outcome)) as AuditEntry["outcome"],
    });
  }

  async deadLetters(workspaceId?: string): Promise<DeadLetters> {
    const groups = new Map<string, RunRecord[]>();
    for (const r of this.db.runs.values()) {
      if (r.recovery_state !== "quarantined" || r.recovery_reason === null || r.recovered_at === null)
        continue;
      if (workspaceId !== undefined && r.workspace_id !== workspaceId) continue;
      const key = JSON.stringify([r.recovery_reason, r.error_code, r.workspace_id]);
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const at = (r: RunRecord) => r.recovered_at ?? 0;
    const rows = [...groups.values()].flatMap((runs) => {
      const times = runs.map(at);
      const figures = { n: runs.length, oldest: Math.min(...times), newest: Math.max(...times) };
      return runs
        .sort((a, b) => at(b) - at(a) || compareText(b.id, a.id))
        .slice(0, DEAD_LETTER_EXECUTIONS)
        .map((r) => ({ ...r, ...figures, reason: r.recovery_reason ?? "", recovered_at: at(r) }));
    });
    return groupDeadLetters(rows);
  }

  async listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return this.db.audit
      .filter(
        (e) =>
          (query.actor === undefined || e.actor === query.actor) &&
          (query.action === undefined || e.action === query.action) &&
          (query.beforeId === undefined || e.id < query.beforeId),
      )
      .reverse()
      .slice(0, query.limit);
  }

  async pruneAudit(before: number, limit: number): Promise<number> {
    const old = this.db.audit.filter((e) => Date.parse(e.at) < before).slice(0, limit);
    const gone = new Set(old);
    this.db.audit = this.db.audit.filter((e) => !gone.has(e));
    return old.length;
  }

  async createBulkJob(input: NewBulkJob): Promise<BulkJob> {
    const now = this.now();
    // Matched at once, in one go: no event loop to share with a statement here.
    const filters = filterConditions(storageQueryOf(input.filter));
    const runs = [...this.db.runs.values()]
      .filter(
        (r) =>
          r.created_at <= now &&
          filters.every((f) =>
            matches(f, (r as unknown as Record<string, string | number | null>)[f.column]),
          ),
      )
      .sort((a, b) => a.created_at - b.created_at || compareText(a.id, b.id));
    const items = runs.map((r, i) => ({ position: i + 1, runId: r.id, outcome: null, message: null }));
    const job: BulkJob = {
      id: input.id,
      action: input.action,
      status: items.length > 0 ? "running" : "completed",
      total: items.length,
      done: 0,
      outcomes: {},
      filter: fromJson(toJson(input.filter)) as BulkJob["filter"],
      requestedBy: input.requestedBy,
      claimedBy: input.claimedBy,
      startedAt: iso(now),
      endedAt: items.length > 0 ? null : iso(now),
      error: null,
    };
    this.db.bulkJobs.set(job.id, {
      job,
      includeCancelled: input.includeCancelled,
      leaseOwner: null,
      leaseUntil: null,
    });
    this.db.bulkItems.set(job.id, items);
    return { ...job };
  }

  async leaseBulkJob(owner: string, leaseMs: number): Promise<BulkJob | null> {
    const now = this.now();
    const free = [...this.db.bulkJobs.values()]
      .filter((j) => j.job.status === "running" && (j.leaseUntil === null || j.leaseUntil < now))
      .sort((a, b) => compareText(a.job.startedAt, b.job.startedAt))[0];
    if (!free) return null;
    Object.assign(free, { leaseOwner: owner, leaseUntil: now + leaseMs });
    return { ...free.job };
  }

  async runBulkChunk(jobId: string, owner: string, limit: number, leaseMs: number, maxAttempts: number) {
    const now = this.now();
    const record = this.db.bulkJobs.get(jobId);
    if (record?.job.status !== "running" || record.leaseOwner !== owner) return null;
    const { job } = record;
    const pending = this.db.bulkItems.get(jobId)!.slice(job.done, job.done + limit);
    const chunk: BulkChunk = { job, requeued: [], cancelRequested: [], parkedCancelled: [] };
    const request = {
      by: job.requestedBy,
      claimedBy: job.claimedBy,
      maxAttempts,
      includeCancelled: record.includeCancelled,
    };
    for (const item of pending) {
      if (job.action === "requeue") {
        const requeue = this.requeueRun(item.runId, request);
        if (requeue.ok) chunk.requeued.push(requeue.queueEntry);
        item.outcome = requeue.ok ? REQUEUED : requeue.code;
        item.message = requeue.ok ? null : requeue.message;
      } else {
        const cancel = await this.requestCancel(item.runId);
        if (cancel.kind === "requested") chunk.cancelRequested.push(item.runId);
        if (cancel.kind === "cancelled" && cancel.parked)
          chunk.parkedCancelled.push({ id: item.runId, sessionId: cancel.run.sessionId });
        item.outcome = cancelOutcomeOf(cancel);
      }
      job.outcomes[item.outcome] = (job.outcomes[item.outcome] ?? 0) + 1;
    }
    job.done += pending.length;
    record.leaseUntil = now + leaseMs;
    if (pending.length < limit) Object.assign(job, { status: "completed", endedAt: iso(now) });
    return { ...chunk, job: { ...job, outcomes: { ...job.outcomes } } };
  }

  async getBulkJob(id: string): Promise<BulkJob | null> {
    const record = this.db.bulkJobs.get(id);
    return record ? { ...record.job, outcomes: { ...record.job.outcomes } } : null;
  }

  async listBulkJobs(limit: number): Promise<BulkJob[]> {
    return [...this.db.bulkJobs.values()]
      .map((r) => ({ ...r.job, outcomes: { ...r.job.outcomes } }))
      .sort((a, b) => compareText(b.startedAt, a.startedAt) || compareText(b.id, a.id))
      .slice(0, limit);
  }

  async listBulkJobItems(query: BulkItemQuery): Promise<BulkJobItem[]> {
    return (this.db.bulkItems.get(query.id) ?? [])
      .filter(
        (i) =>
          i.position > (query.afterPosition ?? 0) &&
          (query.outcome === undefined || i.outcome === query.outcome),
      )
      .slice(0, query.limit)
      .map((i) => ({ ...i }));
  }

  async abortBulkJob(id: string): Promise<BulkJob | null> {
    const record = this.db.bulkJobs.get(id);
    if (record?.job.status === "running") {
      Object.assign(record.job, { status: "aborted", endedAt: iso(this.now()) });
      Object.assign(record, { leaseOwner: null, leaseUntil: null });
    }
    return this.getBulkJob(id);
  }

  async failBulkJob(id: string, owner: string, error: string): Promise<void> {
    const record = this.db.bulkJobs.get(id);
    if (record?.job.status !== "running" || record.leaseOwner !== owner) return;
    Object.assign(record.job, { status: "failed", error, endedAt: iso(this.now()) });
    Object.assign(record, { leaseOwner: null, leaseUntil: null });
  }

  /** Its tables are this object's: nobody else can use them. */
  async acquireExclusiveUse(): Promise<void> {}

  async ping(): Promise<void> {
    void this.db;
  }

  async close(): Promise<void> {
    this.tables = null;
  }
}

/** A submission's row, queued at `seq` of its session. */
function newRunRecord(input: NewRun, seq: number, now: number): RunRecord {
  return {
    id: input.id,
    session_id: input.sessionId,
    seq,
    queue_seq: seq,
    workspace_id: input.workspaceId,
    parent_run_id: input.parentRunId,
    priority: input.priority,
    executor: input.executor,
    input: encodeJson(input.input ?? null),
    output: null,
    status: "queued",
    error_code: null,
    error_message: null,
    created_at: now,
    enqueued_at: now,
    started_at: null,
    heartbeat_at: null,
    ended_at: null,
    cancel_requested_at: null,
    timeout_ms: input.timeoutMs,
    worker_id: null,
    claim_token: null,
    attempt: 0,
    recovery_state: null,
    recovery_reason: null,
    recovered_at: null,
    waiting_tool: null,
    tool_result: null,
    parked_at: null,
    parked_state: null,
    metadata: "{}",
    idempotency_key: input.idempotencyKey,
    updated_at: now,
  };
}
