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
import { type QueueEntry, type RunEventType, requireWriteTarget } from "@oah/core";
import { GroupCommit } from "./group-commit";
import { listAudit, pruneAudit, recordAudit } from "./ops/audit-log";
import { activeByWorkspace, awaitingSlot, countAwaitingSlot, listAwaitingSlot } from "./ops/awaiting-slot";
import {
  abortBulkJob,
  createBulkJob,
  failBulkJob,
  getBulkJob,
  leaseBulkJob,
  listBulkJobItems,
  listBulkJobs,
  runBulkChunk,
} from "./ops/bulk-jobs";
import { requestCancel } from "./ops/cancel";
import { type OpContext, opContext } from "./ops/context";
import { type CreatedRun, createdRuns, createRun, createRuns, insertRunsStatement } from "./ops/create-runs";
import { deadLetters } from "./ops/dead-letters";
import { appendEvent, finishStep, startStep, updateStepOutput } from "./ops/events-and-steps";
import { findStaleRuns } from "./ops/find-stale-runs";
import { heartbeat } from "./ops/heartbeat";
import { listRuns } from "./ops/list-runs";
import { overview } from "./ops/overview";
import { expireParkedRuns, parkRun, resumeRun } from "./ops/parked-runs";
import {
  behindUnfinished,
  claimHolders,
  getRun,
  listRunEvents,
  listRunSteps,
  listSessionRuns,
  previousOutput,
} from "./ops/reads";
import { recoverRun } from "./ops/recover-run";
import { requeueRuns } from "./ops/requeue-runs";
import { eventPosition, type StreamRead, streamEventsBatch } from "./ops/stream-events";
import { deliverToolResult, takeToolResult, waitForTool } from "./ops/tool-results";
import { writeTransitions } from "./ops/write-transitions";
import type {
  AuditQuery,
  AwaitingSlotPage,
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
} from "./run-store";
import type { SqlClient } from "./sql/client";
import type { Transition } from "./transitions";

export interface SqlRunStoreOptions {
  now?: () => number;
  /** How many status-changing writes a host makes between two folds of the overview's counters. */
  foldCountsEvery?: number;
}

type Page = { after?: number; limit: number };

/**
 * The RunStore over PostgreSQL or SQLite: one set of queries, rendered by the client's
 * dialect, one operation (or group of them) per file of ops/.
 */
export class SqlRunStore implements RunStore {
  private readonly ctx: OpContext;
  /** Starts and ends of runs: calls made while a write is in flight go into the next one. */
  /** Single submissions that arrive together (without idempotency keys) share one statement and commit. */
  private readonly submissions = new GroupCommit(async (batch: NewRun[]) =>
    createdRuns(await insertRunsStatement(this.ctx, batch), this.ctx.db),
  );
  private readonly transitions = new GroupCommit((batch: Transition[]) => writeTransitions(this.ctx, batch));
  /** Reads of event streams: those asked while reads are in flight go together in the next (up to 4 at once). */
  private readonly streamReads = new GroupCommit(
    (batch: StreamRead[]) => streamEventsBatch(this.ctx, batch),
    200,
    4,
  );

  constructor(db: SqlClient, options: SqlRunStoreOptions = {}) {
    this.ctx = opContext(db, options.now ?? Date.now, options.foldCountsEvery ?? 1_000);
  }

  get dialect() {
    return this.ctx.db.dialect;
  }

  createRun(input: NewRun): Promise<CreatedRun> {
    if (this.ctx.db.dialect === "postgres" && input.idempotencyKey === null)
      return this.submissions.submit(input);
    return createRun(this.ctx, input);
  }

  createRuns(inputs: readonly NewRun[], options: { atomic: boolean }): Promise<SubmissionOutcome[]> {
    return createRuns(this.ctx, inputs, options);
  }

  getRun(runId: string): Promise<Run | null> {
    return getRun(this.ctx, runId);
  }

  listSessionRuns(sessionId: string, page: Page): Promise<Run[]> {
    return listSessionRuns(this.ctx, sessionId, page);
  }

  listRunEvents(runId: string, page: Page): Promise<RunEvent[]> {
    return listRunEvents(this.ctx, runId, page);
  }

  listRunSteps(runId: string): Promise<RunStep[]> {
    return listRunSteps(this.ctx, runId);
  }

  eventPosition(scope: EventScope, eventId: number): Promise<ResumePoint | null> {
    return eventPosition(this.ctx, scope, eventId);
  }

  streamEvents(scope: EventScope, after: EventPosition, limit: number): Promise<EventStreamPage> {
    return this.streamReads.submit({ scope, after, limit });
  }

  previousOutput(sessionId: string, beforeSeq: number, executor: string): Promise<unknown> {
    return previousOutput(this.ctx, sessionId, beforeSeq, executor);
  }

  listAwaitingSlot(page: AwaitingSlotPage): Promise<QueueEntry[]> {
    return listAwaitingSlot(this.ctx, page);
  }

  startRun(claim: Claim, workerId: string): Promise<StartResult> {
    return this.transitions.submit({ kind: "start", claim, workerId }) as Promise<StartResult>;
  }

  async finishRun(claim: Claim, outcome: RunOutcome): Promise<RunSummary | null> {
    // Refused alone, before it joins a batch that other runs' ends share.
    requireWriteTarget("finish", outcome.status);
    return this.transitions.submit({ kind: "finish", claim, outcome }) as Promise<RunSummary | null>;
  }

  heartbeat(claims: Claim[]): Promise<HeartbeatResult> {
    return heartbeat(this.ctx, claims);
  }

  appendEvent(claim: Claim, type: RunEventType, data?: Record<string, unknown>): Promise<boolean> {
    return appendEvent(this.ctx, claim, type, data);
  }

  startStep(claim: Claim, step: StepStart): Promise<number | null> {
    return startStep(this.ctx, claim, step);
  }

  updateStepOutput(claim: Claim, stepId: number, output: unknown): Promise<boolean> {
    return updateStepOutput(this.ctx, claim, stepId, output);
  }

  finishStep(claim: Claim, stepId: number, end: StepEnd): Promise<boolean> {
    return finishStep(this.ctx, claim, stepId, end);
  }

  requestCancel(runId: string): Promise<CancelRequest> {
    return requestCancel(this.ctx, runId);
  }

  waitForTool(claim: Claim, name: string): Promise<boolean> {
    return waitForTool(this.ctx, claim, name);
  }

  deliverToolResult(runId: string, name: string, output: unknown): Promise<ToolResultDelivery> {
    return deliverToolResult(this.ctx, runId, name, output);
  }

  takeToolResult(claim: Claim): Promise<ToolResultTake> {
    return takeToolResult(this.ctx, claim);
  }

  parkRun(claim: Claim, park: Park): Promise<ParkResult> {
    return parkRun(this.ctx, claim, park);
  }

  resumeRun(claim: Claim, workerId: string): Promise<StartResult> {
    return resumeRun(this.ctx, claim, workerId);
  }

  expireParkedRuns(limit: number): Promise<Run[]> {
    return expireParkedRuns(this.ctx, limit);
  }

  requeueRuns(runIds: readonly string[], request: ManualRequeueRequest): Promise<ManualRequeueOutcome[]> {
    return requeueRuns(this.ctx, runIds, request);
  }

  listRuns(query: StorageRunQuery): Promise<RunSummary[]> {
    return listRuns(this.ctx, query);
  }

  overview(): Promise<StorageOverview> {
    return overview(this.ctx);
  }

  awaitingSlot(runIds: readonly string[]): Promise<Set<string>> {
    return awaitingSlot(this.ctx, runIds);
  }

  countAwaitingSlot(): Promise<number> {
    return countAwaitingSlot(this.ctx);
  }

  activeByWorkspace(): Promise<WorkspaceActivity[]> {
    return activeByWorkspace(this.ctx);
  }

  findStaleRuns(query: StaleRunQuery): Promise<Run[]> {
    return findStaleRuns(this.ctx, query);
  }

  claimHolders(locks: readonly { sessionId: string; token: string }[]): Promise<Map<string, Run>> {
    return claimHolders(this.ctx, locks);
  }

  behindUnfinished(runIds: readonly string[]): Promise<Set<string>> {
    return behindUnfinished(this.ctx, runIds);
  }

  recoverRun(request: RecoveryRequest): Promise<RecoveredRun | null> {
    return recoverRun(this.ctx, request);
  }

  recordAudit(entry: NewAuditEntry): Promise<void> {
    return recordAudit(this.ctx, entry);
  }

  deadLetters(workspaceId?: string): Promise<DeadLetters> {
    return deadLetters(this.ctx, workspaceId);
  }

  listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return listAudit(this.ctx, query);
  }

  pruneAudit(before: number, limit: number): Promise<number> {
    return pruneAudit(this.ctx, before, limit);
  }

  createBulkJob(job: NewBulkJob): Promise<BulkJob> {
    return createBulkJob(this.ctx, job);
  }

  leaseBulkJob(owner: string, leaseMs: number): Promise<BulkJob | null> {
    return leaseBulkJob(this.ctx, owner, leaseMs);
  }

  runBulkChunk(jobId: string, owner: string, limit: number, leaseMs: number, maxAttempts: number) {
    return runBulkChunk(this.ctx, jobId, owner, limit, leaseMs, maxAttempts);
  }

  getBulkJob(id: string): Promise<BulkJob | null> {
    return getBulkJob(this.ctx, id);
  }

  listBulkJobs(limit: number): Promise<BulkJob[]> {
    return listBulkJobs(this.ctx, limit);
  }

  listBulkJobItems(query: BulkItemQuery): Promise<BulkJobItem[]> {
    return listBulkJobItems(this.ctx, query);
  }

  abortBulkJob(id: string): Promise<BulkJob | null> {
    return abortBulkJob(this.ctx, id);
  }

  failBulkJob(id: string, owner: string, error: string): Promise<void> {
    return failBulkJob(this.ctx, id, owner, error);
  }

  acquireExclusiveUse(): Promise<void> {
    return this.ctx.db.acquireExclusiveUse();
  }

  ping(): Promise<void> {
    return this.ctx.db.ping();
  }

  close(): Promise<void> {
    return this.ctx.db.close();
  }
}
