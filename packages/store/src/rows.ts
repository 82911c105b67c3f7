import type { ExecutorName, Run, RunEvent, RunStep, RunSummary } from "@oah/contract";
import type {
  BusyCancelReason,
  IfBusy,
  QueueEntry,
  RecoveryState,
  RunEventType,
  RunMetadata,
  RunPriority,
  RunStatus,
  StepKind,
  StepStatus,
} from "@oah/core";
import type { SqlClient } from "./sql/client";

/** Every column of a run but its input and output: what lists of many runs read (RunSummary). */
export const SUMMARY_COLUMNS = `id, session_id, seq, queue_seq, workspace_id, parent_run_id, priority, executor,
  status, error_code, error_message, created_at, enqueued_at, started_at, heartbeat_at, ended_at, cancel_requested_at,
  timeout_ms, worker_id, claim_token, attempt, recovery_state, recovery_reason, recovered_at, waiting_tool, parked_at, metadata,
  idempotency_key, forked_from, forked_from_step, if_busy, cancel_reason, cancelled_by, updated_at`;

export const RUN_COLUMNS = `${SUMMARY_COLUMNS}, input, output`;

export interface RunRow {
  id: string;
  session_id: string;
  seq: number;
  queue_seq: number;
  workspace_id: string;
  parent_run_id: string | null;
  priority: string;
  executor: string;
  input: unknown;
  output: unknown;
  status: string;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  enqueued_at: number;
  started_at: number | null;
  heartbeat_at: number | null;
  ended_at: number | null;
  cancel_requested_at: number | null;
  timeout_ms: number;
  worker_id: string | null;
  claim_token: string | null;
  attempt: number;
  recovery_state: string | null;
  recovery_reason: string | null;
  recovered_at: number | null;
  waiting_tool: string | null;
  /** Set while the run is parked in waiting_tool (docs/spec.md §6). */
  parked_at: number | null;
  metadata: unknown;
  idempotency_key: string | null;
  forked_from: string | null;
  forked_from_step: number | string | null;
  if_busy: string | null;
  cancel_reason: string | null;
  cancelled_by: string | null;
  updated_at: number;
}

export interface EventRow {
  id: number;
  run_id: string;
  type: string;
  at: number;
  data: unknown;
}

export interface StepRow {
  id: number;
  run_id: string;
  kind: string;
  name: string;
  status: string;
  started_at: number;
  ended_at: number | null;
  output: unknown;
  error_code: string | null;
  error_message: string | null;
}

/** What decodes the JSON columns of rows: the client that read them. */
export type JsonDecoder = Pick<SqlClient, "decodeJson">;

export const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function decodeRun(row: RunRow, db: JsonDecoder): Run {
  // The summary grows into the run rather than being copied into a new object: a batch's
  // answer decodes a thousand of them.
  return Object.assign(decodeRunSummary(row, db), {
    input: db.decodeJson(row.input),
    output: db.decodeJson(row.output) ?? null,
  });
}

export function decodeMetadata(row: Pick<RunRow, "metadata">, db: JsonDecoder): RunMetadata {
  return (db.decodeJson(row.metadata) ?? {}) as RunMetadata;
}

export function decodeRunSummary(row: Omit<RunRow, "input" | "output">, db: JsonDecoder): RunSummary {
  return {
    id: row.id,
    sessionId: row.session_id,
    seq: row.seq,
    workspaceId: row.workspace_id,
    parentRunId: row.parent_run_id,
    priority: row.priority as RunPriority,
    executor: row.executor as ExecutorName,
    status: row.status as RunStatus,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdAt: iso(row.created_at),
    startedAt: isoOrNull(row.started_at),
    heartbeatAt: isoOrNull(row.heartbeat_at),
    endedAt: isoOrNull(row.ended_at),
    cancelRequestedAt: isoOrNull(row.cancel_requested_at),
    timeoutMs: row.timeout_ms,
    workerId: row.worker_id,
    attempt: row.attempt,
    recoveryState: row.recovery_state as RecoveryState | null,
    waitingTool: row.waiting_tool,
    forkedFrom:
      row.forked_from === null ? null : { runId: row.forked_from, stepId: Number(row.forked_from_step) },
    ifBusy: (row.if_busy ?? "enqueue") as IfBusy,
    // A cause without a run is an operator's interrupt.
    cancelledBy:
      row.cancel_reason === null
        ? null
        : { runId: row.cancelled_by, reason: row.cancel_reason as BusyCancelReason },
    // `parked` is shown from its column, the one truth of it, and never stored in the metadata.
    metadata: row.parked_at === null ? decodeMetadata(row, db) : { ...decodeMetadata(row, db), parked: true },
  };
}

export function decodeEvent(row: EventRow, db: JsonDecoder): RunEvent {
  return {
    id: row.id,
    runId: row.run_id,
    type: row.type as RunEventType,
    at: iso(row.at),
    data: (db.decodeJson(row.data) ?? null) as Record<string, unknown> | null,
  };
}

export function decodeStep(row: StepRow, db: JsonDecoder): RunStep {
  return {
    id: row.id,
    runId: row.run_id,
    kind: row.kind as StepKind,
    name: row.name,
    status: row.status as StepStatus,
    startedAt: iso(row.started_at),
    endedAt: isoOrNull(row.ended_at),
    output: db.decodeJson(row.output) ?? null,
    errorCode: row.error_code,
    errorMessage: row.error_message,
  };
}

/** A run's place in its session's queue: queued, or parked with its tool result (to be resumed). */
export function entryOf(
  row: Pick<
    RunRow,
    "id" | "session_id" | "workspace_id" | "queue_seq" | "priority" | "enqueued_at" | "parked_at"
  >,
): QueueEntry {
  return {
    runId: row.id,
    sessionId: row.session_id,
    workspaceId: row.workspace_id,
    queueSeq: row.queue_seq,
    priority: row.priority as RunPriority,
    enqueuedAt: row.enqueued_at,
    ...(row.parked_at === null ? {} : { resume: true }),
  };
}

/**
 * The facts a requeue checks, manual or automatic: the run belongs to a session, and
 * has its place in its session's queue (its queue position) to go back to.
 */
export const hasSession = (row: Pick<RunRow, "session_id">): boolean => row.session_id !== "";
export const hasQueuePlace = (row: Pick<RunRow, "queue_seq">): boolean =>
  row.queue_seq !== null && row.queue_seq !== undefined;
