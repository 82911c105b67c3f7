import type {
  AuditEntry,
  AuditOutcome,
  BulkJob,
  BulkJobItem,
  DeadLetters,
  ExecutorName,
  Run,
  RunEvent,
  RunStep,
  RunSummary,
  StorageOverview,
  StorageRunFilters,
} from "@oah/contract";
import type {
  ActiveStatus,
  Actor,
  AuditAction,
  BulkAction,
  OahError,
  QueueEntry,
  RecoveryContext,
  RunEventType,
  RunPriority,
  RunStatus,
  StaleRunAction,
  StepKind,
  TerminalStatus,
} from "@oah/core";

/**
 * What a submission of a batch did: its run (`created` false: its key made it earlier), its key's
 * conflict, or its refusal (a session of another workspace).
 */
export type SubmissionOutcome =
  | { run: Run; created: boolean; queueEntry: QueueEntry }
  | { conflict: Run }
  | { refused: OahError };

export interface NewRun {
  id: string;
  sessionId: string;
  workspaceId: string;
  parentRunId: string | null;
  priority: RunPriority;
  executor: ExecutorName;
  input: unknown;
  timeoutMs: number;
  idempotencyKey: string | null;
}

/** The fencing identity of one execution: every write it makes is conditional on the token. */
export interface Claim {
  runId: string;
  token: string;
}

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

export interface HeartbeatResult {
  /** Claims whose run is no longer theirs: their executions must stop and write nothing more. */
  fenced: string[];
  /** Runs whose cancel was requested (the fallback when a cancel notification was missed). */
  cancelRequested: string[];
  /** Waiting runs whose tool result has arrived (the fallback when its notification was missed). */
  toolResultReady: string[];
}

export type ToolResultDelivery =
  /** `resume`: the run is parked, and this entry puts it back at the front of its session's queue. */
  | { kind: "accepted"; run: Run; resume: QueueEntry | null }
  | { kind: "unknown_run" }
  | { kind: "not_waiting"; status: RunStatus; waitingTool: string | null }
  | { kind: "wrong_name"; waitingTool: string };

export type ToolResultTake = { kind: "taken"; output: unknown } | { kind: "pending" } | { kind: "fenced" };

/** A wait to park: the tool waited for, and what the executor needs to go on after it. */
export interface Park {
  tool: string;
  state: unknown;
}

/** `cancel_requested`: not parked, since a cancel came first: the execution ends the run cancelled. */
export type ParkResult = "parked" | "cancel_requested" | "fenced";

export interface ManualRequeueRequest {
  /** Who asks: the caller (its token's name). */
  by: string;
  /** The name the caller gave as who asks, kept beside it; null when it gave none. */
  claimedBy: string | null;
  maxAttempts: number;
  includeCancelled: boolean;
}

export type ManualRequeueOutcome =
  | { runId: string; ok: true; previousStatus: RunStatus; queueEntry: QueueEntry }
  | { runId: string; ok: false; code: string; message: string };

/**
 * The admin list's query: the API's filters (createdFrom/createdTo as epoch ms, from
 * inclusive, to exclusive; each filter's match in storage-filters.ts) and the page.
 */
export type StorageRunQuery = Omit<StorageRunFilters, "createdFrom" | "createdTo"> & {
  createdFrom?: number;
  createdTo?: number;
  /** Runs strictly after this position of the (createdAt desc, id desc) order. */
  after?: { createdAt: number; id: string };
  limit: number;
};

/** The Storage filters of a query, without its page. */
export type StorageRunFilterQuery = Omit<StorageRunQuery, "after" | "limit">;

/** A bulk job to start (docs/spec.md §9): its runs are the ones the filter matches now. */
export interface NewBulkJob {
  id: string;
  action: BulkAction;
  /** The filter as the API took it: kept with the job, shown back, and matched (storageQueryOf). */
  filter: StorageRunFilters;
  /** Who starts it (the caller), and the name it gave as who asks, beside it. */
  requestedBy: string;
  claimedBy: string | null;
  includeCancelled: boolean;
  /** Who starts it: it holds the job's lease while the runs matched are written as its items. */
  owner: string;
  leaseMs: number;
}

/** What one chunk of a job did, for the queue and the hosts to be told after it committed. */
export interface BulkChunk {
  job: BulkJob;
  /** Runs requeued: to enqueue. */
  requeued: QueueEntry[];
  /** Executing runs asked to cancel: their hosts are to be told. */
  cancelRequested: string[];
  /** Parked runs cancelled where they waited: their sessions go on. */
  parkedCancelled: { id: string; sessionId: string }[];
}

export interface BulkItemQuery {
  id: string;
  outcome?: string;
  afterPosition?: number;
  limit: number;
}

export type CancelRequest =
  /** Ended at once: it was queued, or parked (`parked`: its session may have later runs to go on with). */
  | { kind: "cancelled"; run: Run; parked: boolean }
  | { kind: "requested"; run: Run }
  | { kind: "terminal"; run: Run }
  | { kind: "missing" };

/** The events of one stream: of a run, or of every run of a session. */
export type EventScope = { runId: string } | { sessionId: string };

/** Where a stream is: after this event, in the stream's order (see ops/stream-events.ts). */
export interface EventPosition {
  /** The transaction that wrote it, as text (PostgreSQL); "0" where ids are in commit order. */
  tx: string;
  id: number;
}

/** Where a stream resumes: after this event, of this type. */
export interface ResumePoint {
  position: EventPosition;
  type: RunEventType;
}

export interface EventStreamPage {
  events: RunEvent[];
  /** The position after the page's last event; null when the page is empty. */
  last: EventPosition | null;
  /** Events past the page are committed but not yet in order: read again soon. */
  unsettled: boolean;
  /** The page was cut at its limit: there may be more at once. */
  full: boolean;
}

export interface WorkspaceActivity {
  workspaceId: string;
  /** Running, or waiting for a tool result while holding its slot (hold mode). */
  executingRuns: number;
  parkedRuns: number;
}

export type AwaitingSlotPage =
  | { after?: { sessionId: string; queueSeq: number }; limit: number }
  | { enqueuedBefore: number; limit: number };

/** An operator action to record (docs/spec.md §13). */
export interface NewAuditEntry {
  actor: Actor;
  action: AuditAction;
  target: string | null;
  params: unknown;
  outcome: AuditOutcome;
}

export interface AuditQuery {
  actor?: string;
  action?: AuditAction;
  /** Entries older than this one (ids grow with time). */
  beforeId?: number;
  limit: number;
}

export interface StepStart {
  kind: StepKind;
  name: string;
  at?: number;
}

export interface StepEnd {
  status: "completed" | "failed";
  output?: unknown;
  errorCode?: string | null;
  errorMessage?: string | null;
}

export interface StaleRunQuery {
  /** Active runs whose last sign of life is older than this (epoch ms). */
  lastSeenBefore: number;
  /** Keyset: runs after this one, in (session, run id) order. */
  after?: { sessionId: string; id: string };
  limit: number;
}

export interface RecoveredRun {
  run: Run;
  /** What was done: the run requeued, failed (or quarantined), or cancelled. */
  action: Exclude<StaleRunAction, { action: "wait" }>;
  /** Present when the run was requeued: where it goes back into its session's queue. */
  queueEntry: QueueEntry | null;
  /** The claim token of the execution that went stale: its session lock may still be held by it. */
  previousClaimToken: string | null;
}

/** The run as the recovery transaction finds it under its row lock. */
export interface LockedStaleRun {
  status: ActiveStatus;
  recoveryAttempts: number;
  cancelRequested: boolean;
  /** The run belongs to a session (as a manual requeue checks it). */
  hasSession: boolean;
  /** The run has its place in its session's queue (its queue position) to go back to. */
  queueAvailable: boolean;
}

export interface RecoveryRequest {
  runId: string;
  /**
   * Decided under the row lock, from the run as it is then: a cancel requested since the run
   * was found stale is honoured. `wait` leaves the run as it is.
   */
  decide(run: LockedStaleRun): StaleRunAction;
  context: Omit<RecoveryContext, "from" | "at">;
  /** Re-checked under the row lock, so that a run that came back to life is left alone. */
  lastSeenBefore: number;
}

/**
 * The durable store of sessions, runs, events and steps: the source of truth.
 * Status changes and their events are written in one transaction; every write
 * an execution makes is fenced by its claim token.
 */
export interface RunStore {
  /** What holds the rows: a SQL database, or this process's memory (MemoryRunStore, for tests). */
  readonly dialect: "postgres" | "sqlite" | "memory";

  /**
   * One submission: its run, made now or earlier by its idempotency key (the caller tells a repeat
   * from a conflict). A session takes runs of one workspace, its first run's: another is refused
   * with `session_workspace_mismatch`, nothing written.
   */
  createRun(run: NewRun): Promise<{ run: Run; created: boolean; queueEntry: QueueEntry }>;
  /**
   * A batch of submissions in one transaction, numbered in their sessions in the order given:
   * each one's run (made now, or made earlier for the same body by its key), its key's conflict,
   * or its refusal (a session of another workspace); `atomic`, a conflict or a refusal writes
   * nothing and refuses the batch (`idempotency_key_conflict` naming each conflicting index,
   * `session_workspace_mismatch`).
   */
  createRuns(runs: readonly NewRun[], options: { atomic: boolean }): Promise<SubmissionOutcome[]>;
  getRun(runId: string): Promise<Run | null>;
  listSessionRuns(sessionId: string, page: { after?: number; limit: number }): Promise<Run[]>;
  listRunEvents(runId: string, page: { after?: number; limit: number }): Promise<RunEvent[]>;
  listRunSteps(runId: string): Promise<RunStep[]>;
  /** Where the stream of `scope` resumes after the event `eventId`; null when the scope has no such event. */
  eventPosition(scope: EventScope, eventId: number): Promise<ResumePoint | null>;
  /** The events of a stream after a position, in commit order, never one out of order. */
  streamEvents(scope: EventScope, after: EventPosition, limit: number): Promise<EventStreamPage>;
  /** The output of the latest completed run of `executor` in the session before position `beforeSeq`. */
  previousOutput(sessionId: string, beforeSeq: number, executor: string): Promise<unknown>;

  /**
   * The queue entries of runs awaiting a slot (queued, or parked with their tool result) in
   * queue order (session, then queueSeq), for rebuilding a queue; or, with `enqueuedBefore`,
   * those waiting since before then, longest first.
   */
  listAwaitingSlot(page: AwaitingSlotPage): Promise<QueueEntry[]>;

  startRun(claim: Claim, workerId: string): Promise<StartResult>;
  heartbeat(claims: Claim[]): Promise<HeartbeatResult>;
  /**
   * Ends the run; answers its summary (its input and output are not read back), or null when
   * the claim has been fenced out.
   */
  finishRun(claim: Claim, outcome: RunOutcome): Promise<RunSummary | null>;
  appendEvent(claim: Claim, type: RunEventType, data?: Record<string, unknown>): Promise<boolean>;
  startStep(claim: Claim, step: StepStart): Promise<number | null>;
  /** The output so far of a step still running (a shell command's output, streamed). */
  updateStepOutput(claim: Claim, stepId: number, output: unknown): Promise<boolean>;
  finishStep(claim: Claim, stepId: number, end: StepEnd): Promise<boolean>;

  requestCancel(runId: string): Promise<CancelRequest>;

  /** running → waiting_tool, waiting for the tool `name`; false when fenced out. */
  waitForTool(claim: Claim, name: string): Promise<boolean>;
  /**
   * running → waiting_tool, parked: the run keeps `park.state` and belongs to no worker, claim
   * or heartbeat until its result arrives and resumeRun continues it.
   */
  parkRun(claim: Claim, park: Park): Promise<ParkResult>;
  /** A parked run whose result has arrived → running under this claim, with what it saved. */
  resumeRun(claim: Claim, workerId: string): Promise<StartResult>;
  /** Ends the parked runs past their deadline (startedAt + timeoutMs) `timed_out`, up to `limit`. */
  expireParkedRuns(limit: number): Promise<Run[]>;
  /** A client's result for a waiting run; kept on the run until its execution takes it. */
  deliverToolResult(runId: string, name: string, output: unknown): Promise<ToolResultDelivery>;
  /** waiting_tool → running with the delivered result, once there is one. */
  takeToolResult(claim: Claim): Promise<ToolResultTake>;

  /**
   * An operator's requeue of each run (docs/spec.md §7): to the tail of its session, with a fresh budget.
   * Runs whose cancel was requested only with `includeCancelled`.
   */
  requeueRuns(runIds: readonly string[], request: ManualRequeueRequest): Promise<ManualRequeueOutcome[]>;

  listRuns(query: StorageRunQuery): Promise<RunSummary[]>;
  overview(): Promise<StorageOverview>;
  /** Which of these runs await a slot (queued, or parked with their result): queue entries to keep. */
  awaitingSlot(runIds: readonly string[]): Promise<Set<string>>;
  /** How many runs await a slot. */
  countAwaitingSlot(): Promise<number>;
  /** Active runs by workspace, executing (holding a slot) or parked, for the pool's report. */
  activeByWorkspace(): Promise<WorkspaceActivity[]>;

  findStaleRuns(query: StaleRunQuery): Promise<Run[]>;
  /** The active runs executing under these session locks, by claim token (absent: none holds it). */
  claimHolders(locks: readonly { sessionId: string; token: string }[]): Promise<Map<string, Run>>;
  /** Those of these runs that an earlier unfinished run of their session holds back (the start guard's rule). */
  behindUnfinished(runIds: readonly string[]): Promise<Set<string>>;
  /** Applies a recovery decision to a stale run; null when it is no longer stale or active. */
  recoverRun(request: RecoveryRequest): Promise<RecoveredRun | null>;

  recordAudit(entry: NewAuditEntry): Promise<void>;
  /** The quarantined runs by reason × error code × workspace, largest groups first. */
  deadLetters(workspaceId?: string): Promise<DeadLetters>;

  /** The audit log, newest first. */
  listAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** Deletes up to `limit` audit entries older than `before` (epoch ms); how many it deleted. */
  pruneAudit(before: number, limit: number): Promise<number>;

  /** Starts a bulk job: its items are the runs its filter matches now, in creation order. */
  createBulkJob(job: NewBulkJob): Promise<BulkJob>;
  /** A running job whose lease is free or lapsed (its worker died), now leased to `owner`. */
  leaseBulkJob(owner: string, leaseMs: number): Promise<BulkJob | null>;
  /**
   * Acts on the next `limit` items of a job `owner` holds the lease of, each run's change and
   * its outcome in one transaction, and renews the lease; null when the lease is not its own
   * (or the job no longer runs). Requeues use `maxAttempts` as their fresh budget.
   */
  runBulkChunk(
    jobId: string,
    owner: string,
    limit: number,
    leaseMs: number,
    maxAttempts: number,
  ): Promise<BulkChunk | null>;
  getBulkJob(id: string): Promise<BulkJob | null>;
  /** The newest jobs first. */
  listBulkJobs(limit: number): Promise<BulkJob[]>;
  listBulkJobItems(query: BulkItemQuery): Promise<BulkJobItem[]>;
  /** Stops a running job where it is; the job as it ends (or as it was), null when unknown. */
  abortBulkJob(id: string): Promise<BulkJob | null>;
  /** Ends a job its owner cannot go on with (its chunks keep failing), saying why. */
  failBulkJob(id: string, owner: string, error: string): Promise<void>;

  /** For the in-process modes: this process alone uses the store until close(), or StoreInUseError. */
  acquireExclusiveUse(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
