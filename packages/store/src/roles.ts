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
import { carriedRun, previousRun } from "./ops/carried-runs";
import { listCheckpoints, readResumption, recordResume, saveCheckpoint } from "./ops/checkpoints";
import { type OpContext, opContext, type WriteAnnouncer } from "./ops/context";
import { createRun, createRuns } from "./ops/create-runs";
import { deadLetters } from "./ops/dead-letters";
import { appendEvent, finishStep, startStep, updateStepOutput } from "./ops/events-and-steps";
import { findStaleRuns } from "./ops/find-stale-runs";
import { forkRun } from "./ops/fork-run";
import { heartbeat } from "./ops/heartbeat";
import { listRuns } from "./ops/list-runs";
import { modelUsage } from "./ops/model-usage";
import { overview } from "./ops/overview";
import { expireParkedRuns, parkRun, resumeRun } from "./ops/parked-runs";
import {
  behindUnfinished,
  claimHolders,
  getRun,
  listRunEvents,
  listRunSteps,
  listSessionRuns,
} from "./ops/reads";
import { recoverRun } from "./ops/recover-run";
import { requeueRuns } from "./ops/requeue-runs";
import { pendingMessages, postMessage } from "./ops/run-messages";
import { eventPosition, streamEvents } from "./ops/stream-events";
import { deliverToolResult, takeToolResult, waitForTool } from "./ops/tool-results";
import { finishRun, startRun } from "./ops/transitions";
import type { SqlClient } from "./sql/client";

// The types the operations take and answer, with them.
export type { AuditQuery, NewAuditEntry } from "./ops/audit-log";
export type { AwaitingSlotPage, WorkspaceActivity } from "./ops/awaiting-slot";
export type { BulkChunk, BulkItemQuery, NewBulkJob } from "./ops/bulk-jobs";
export type { CancelRequest } from "./ops/cancel";
export type { CarriedRun } from "./ops/carried-runs";
export type { Checkpoint, InterruptedStep, Resumption } from "./ops/checkpoints";
export type { Claim } from "./ops/claim";
export type { WriteAnnouncer } from "./ops/context";
export type { CreatedRun, NewRun, SubmissionOutcome } from "./ops/create-runs";
export type { StepEnd, StepStart } from "./ops/events-and-steps";
export type { StaleRunQuery } from "./ops/find-stale-runs";
export type { NewFork } from "./ops/fork-run";
export type { HeartbeatResult } from "./ops/heartbeat";
export type { ModelCallUsage } from "./ops/model-usage";
export type { Park, ParkResult } from "./ops/parked-runs";
export type { LockedStaleRun, RecoveredRun, RecoveryRequest } from "./ops/recover-run";
export type { ManualRequeueOutcome, ManualRequeueRequest } from "./ops/requeue-runs";
export type { RunMessage } from "./ops/run-messages";
export type { EventPosition, EventScope, EventStreamPage, ResumePoint } from "./ops/stream-events";
export type { ToolResultDelivery, ToolResultTake } from "./ops/tool-results";
export type { ParkedExecution, RunOutcome, StartResult } from "./ops/transitions";
export type { StorageRunFilterQuery, StorageRunQuery } from "./storage-filters";

/** A store operation: a function of the store's context and of its own arguments (one file of ops/). */
type Op = (ctx: OpContext, ...args: never[]) => unknown;
type Ops = Readonly<Record<string, Op>>;

/** A role as its consumers call it: its operations, bound to the store's context. */
export type Role<O extends Ops> = {
  readonly [K in keyof O]: O[K] extends (ctx: OpContext, ...args: infer A) => infer R
    ? (...args: A) => R
    : never;
};

// The roles of the store (docs/architecture.md): each consumer takes the ones it uses. A role is
// the table of its operations, and its type is read from them: an operation is its file in ops/
// and its line here.

/** What a worker's execution writes, from its start to its end (docs/spec.md §4, §6). */
const EXECUTION = {
  startRun,
  resumeRun,
  heartbeat,
  finishRun,
  appendEvent,
  startStep,
  updateStepOutput,
  finishStep,
  waitForTool,
  takeToolResult,
  parkRun,
  previousRun,
  carriedRun,
  pendingMessages,
} satisfies Ops;
export type ExecutionStore = Role<typeof EXECUTION>;

/** What lets a run's later attempt go on after its last completed step (docs/spec.md §7). */
const CHECKPOINTS = { saveCheckpoint, readResumption, recordResume } satisfies Ops;
export type CheckpointStore = Role<typeof CHECKPOINTS>;

/** What the API writes of runs for its callers: submissions into sessions, cancels, tool results, requeues. */
const SUBMISSION = {
  createRun,
  createRuns,
  requestCancel,
  deliverToolResult,
  requeueRuns,
  forkRun,
  postMessage,
} satisfies Ops;
export type SubmissionStore = Role<typeof SUBMISSION>;

/** The runs, events and steps as the API and the console read them, and the admin's counts. */
const READS = {
  getRun,
  listSessionRuns,
  listRunEvents,
  listRunSteps,
  listCheckpoints,
  listRuns,
  overview,
  deadLetters,
  activeByWorkspace,
  modelUsage,
} satisfies Ops;
export type RunReads = Role<typeof READS>;

/** The event streams' reads (docs/spec.md §12). */
const STREAMS = { eventPosition, streamEvents } satisfies Ops;
export type StreamReads = Role<typeof STREAMS>;

/** What maintenance and the jams' repairs read and write: stale runs, the queue's truth, parked deadlines. */
const RECOVERY = {
  findStaleRuns,
  recoverRun,
  claimHolders,
  behindUnfinished,
  listAwaitingSlot,
  awaitingSlot,
  countAwaitingSlot,
  expireParkedRuns,
} satisfies Ops;
export type RecoveryStore = Role<typeof RECOVERY>;

/** Bulk actions by filter, as jobs of the store (docs/spec.md §9). */
const BULK_JOBS = {
  createBulkJob,
  leaseBulkJob,
  runBulkChunk,
  getBulkJob,
  listBulkJobs,
  listBulkJobItems,
  abortBulkJob,
  failBulkJob,
} satisfies Ops;
export type BulkJobStore = Role<typeof BULK_JOBS>;

/** The audit log (docs/spec.md §13). */
const AUDIT = { recordAudit, listAudit, pruneAudit } satisfies Ops;
export type AuditStore = Role<typeof AUDIT>;

/** The store itself: what holds it, who hears of its writes, its use and its end. */
export interface StoreHandle {
  readonly dialect: SqlClient["dialect"];
  /**
   * From now on, `announcer` hears the sessions of every write committed (the engine gives its
   * event bus, so that the streams of those sessions read at once).
   */
  announceWrites(announcer: WriteAnnouncer): void;
  /** For the in-process modes: this process alone uses the store until close(), or StoreInUseError. */
  acquireExclusiveUse(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The durable store of sessions, runs, events and steps: the source of truth. Status changes and
 * their events are written in one transaction; every write an execution makes is fenced by its
 * claim token.
 */
export type RunStore = StoreHandle &
  ExecutionStore &
  CheckpointStore &
  SubmissionStore &
  RunReads &
  StreamReads &
  RecoveryStore &
  BulkJobStore &
  AuditStore;

export interface RunStoreOptions {
  now?: () => number;
  /** How many status-changing writes a host makes between two folds of the overview's counters. */
  foldCountsEvery?: number;
}

/** The operations of a role, each bound to `ctx`. */
function bound<O extends Ops>(ctx: OpContext, ops: O): Role<O> {
  return Object.fromEntries(
    Object.entries(ops).map(([name, op]) => [name, (...args: never[]) => op(ctx, ...args)]),
  ) as Role<O>;
}

/** The store over PostgreSQL or SQLite: every role's operations on one context, one set of queries. */
export function runStoreOver(db: SqlClient, options: RunStoreOptions = {}): RunStore {
  const announcers: WriteAnnouncer[] = [];
  const ctx = opContext(db, {
    now: options.now ?? Date.now,
    foldCountsEvery: options.foldCountsEvery ?? 1_000,
    announcers,
  });
  return {
    dialect: db.dialect,
    announceWrites: (announcer) => {
      announcers.push(announcer);
    },
    acquireExclusiveUse: () => db.acquireExclusiveUse(),
    ping: () => db.ping(),
    close: () => db.close(),
    ...bound(ctx, EXECUTION),
    ...bound(ctx, CHECKPOINTS),
    ...bound(ctx, SUBMISSION),
    ...bound(ctx, READS),
    ...bound(ctx, STREAMS),
    ...bound(ctx, RECOVERY),
    ...bound(ctx, BULK_JOBS),
    ...bound(ctx, AUDIT),
  };
}
