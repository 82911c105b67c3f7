import type {
  AuditPage,
  BulkDryRun,
  BulkJob,
  BulkJobItemsPage,
  CancelQueuedResult,
  DeadLetters,
  HostOrderAccepted,
  JamCounts,
  JamRepair,
  JamReport,
  ListAuditInput,
  ListBulkJobItemsInput,
  ModelUsageHour,
  PoolOverview,
  RequeueAccepted,
  RequeueItem,
  Rollout,
  SessionInspection,
  StorageOverview,
  StorageRunFilters,
  StorageRunsPage,
} from "@oah/contract";
import type { Actor, BulkAction, JamKind } from "@oah/core";
import { type Request, seg } from "./transport";

export interface RequeueOptions {
  /**
   * Who the caller says asks: kept beside the caller (`lastManualRequeueClaimedBy`, the events'
   * `claimedBy`); `lastManualRequeueBy` is always the token's name.
   */
  requestedBy?: string;
  /** Also start again a run whose cancel was requested. */
  includeCancelled?: boolean;
  /** Start over from the first step, instead of going on from the run's last checkpoint (docs/spec.md §7). */
  fromStart?: boolean;
}

/** A page of the Storage list: the filters, at most `limit` runs, after `cursor` (a page's `nextCursor`). */
export type StorageRunsQuery = Partial<StorageRunFilters> & { limit?: number; cursor?: string };

/** A bulk action by filter: requeue or cancel every run the Storage filter matches. */
export interface BulkActionRequest {
  action: BulkAction;
  filter: Partial<StorageRunFilters>;
  /** Who the caller says asks: the job's `claimedBy`, beside its `requestedBy` (the token's name). */
  requestedBy?: string;
  /** Requeue runs whose cancel was requested too. */
  includeCancelled?: boolean;
  /** Requeued runs start over from their first step. */
  fromStart?: boolean;
}

/**
 * The operators' calls (docs/spec.md §9, §13): the Storage list and its counts, dead letters,
 * requeues and bulk actions by filter, the session inspector, jammed sessions, the audit log,
 * the worker pool, the orders to its hosts and the fleet's rolling restart. Each needs the role
 * the API asks of it.
 */
export interface OahAdminCalls {
  /** An operator's requeue of a failed, timed-out (or, asked so, cancelled) run. */
  requeue(runId: string, options?: RequeueOptions): Promise<RequeueAccepted>;
  /** Runs of every session matching the filters, newest first. */
  listStorageRuns(query?: StorageRunsQuery): Promise<StorageRunsPage>;
  /** The runs' counts by status, the recovery figures, and the jammed sessions of each kind. */
  overview(): Promise<StorageOverview & { jams: JamCounts }>;
  /** Quarantined runs by reason × error code × workspace. */
  deadLetters(query?: { workspaceId?: string }): Promise<DeadLetters>;
  /** The model calls and tokens of each hour, by workspace: the last 24 hours unless `from`/`to` (ISO times) say. */
  usage(query?: { workspaceId?: string; from?: string; to?: string }): Promise<{ items: ModelUsageHour[] }>;
  /** Requeues up to 200 runs: each one's outcome, in the order asked (a refusal does not stop the others). */
  requeueMany(runIds: readonly string[], options?: RequeueOptions): Promise<RequeueItem[]>;
  /** What a bulk action would do to the runs the filter matches now, changing nothing. */
  bulkDryRun(request: BulkActionRequest): Promise<BulkDryRun>;
  /** Starts a bulk action: a job of the store's that acts on the runs the filter matches now. */
  startBulkAction(request: BulkActionRequest): Promise<BulkJob>;
  /** The latest bulk jobs, newest first. */
  listBulkActions(query?: { limit?: number }): Promise<BulkJob[]>;
  getBulkAction(id: string): Promise<BulkJob>;
  /** A job's runs in its order, with what it did to each (of one `outcome`, if given). */
  listBulkActionItems(
    id: string,
    query?: Omit<Partial<ListBulkJobItemsInput>, "id">,
  ): Promise<BulkJobItemsPage>;
  /** Stops a running job where it is: the runs it acted on stay as it left them. */
  abortBulkAction(id: string): Promise<BulkJob>;
  /** A session's runs, its lock's holder and its place in line. */
  inspectSession(sessionId: string): Promise<SessionInspection>;
  /** Cancels a session's queued runs: every one, or those from `fromPosition` (a run's `seq`) on. */
  cancelQueued(sessionId: string, options?: { fromPosition?: number }): Promise<CancelQueuedResult>;
  /** The jammed sessions of each kind. */
  jams(): Promise<JamReport>;
  /** Repairs the sessions that hold this jam now, or those named, each only if it still holds it. */
  repairJams(kind: JamKind, options?: { sessionIds?: readonly string[] }): Promise<JamRepair>;
  /** The audit log of operator actions, newest first. */
  audit(query?: Partial<ListAuditInput>): Promise<AuditPage>;
  /** The caller: its token's name and role. */
  whoami(): Promise<Actor>;
  /** The worker hosts, their slots and recent decisions, the controller's report. */
  pool(): Promise<PoolOverview>;
  /** Stops a host from claiming new runs; the runs it has go on. */
  cordon(hostId: string): Promise<HostOrderAccepted>;
  uncordon(hostId: string): Promise<HostOrderAccepted>;
  /** Cordons a host and lets its runs end for `OAH_DRAIN_TIMEOUT_MS`; recovery takes those left, and the host ends `drained`. */
  drain(hostId: string): Promise<HostOrderAccepted>;
  /** Asks the leading `oah-controller` for a rolling restart of the sandboxes. */
  /** `requestedBy`: who the caller says asks, the rollout's `claimedBy` beside the token's name. */
  rollout(options?: { requestedBy?: string }): Promise<{ rolloutId: string }>;
  rolloutProgress(rolloutId: string): Promise<Rollout>;
}

export function adminCalls(request: Request): OahAdminCalls {
  const bulk = (body: BulkActionRequest & { dryRun: boolean }) =>
    request<BulkDryRun | { job: BulkJob }>("POST", "/api/v1/bulk-actions", { body });
  const job = (id: string, what = "") => `/api/v1/bulk-actions/${seg(id)}${what}`;
  const order = (hostId: string, what: "cordon" | "uncordon" | "drain") =>
    request<HostOrderAccepted>("POST", `/api/v1/hosts/${seg(hostId)}/${what}`);
  return {
    requeue: (runId, options = {}) =>
      request("POST", `/api/v1/runs/${seg(runId)}/requeue`, { body: options }),
    listStorageRuns: (query = {}) => request("GET", "/api/v1/storage/runs", { query }),
    overview: () => request("GET", "/api/v1/storage/overview"),
    deadLetters: (query = {}) => request("GET", "/api/v1/storage/dead-letters", { query }),
    usage: (query = {}) => request("GET", "/api/v1/usage", { query }),
    requeueMany: async (runIds, options = {}) =>
      (
        await request<{ items: RequeueItem[] }>("POST", "/api/v1/runs/requeue", {
          body: { runIds, ...options },
        })
      ).items,
    bulkDryRun: async (body) => (await bulk({ ...body, dryRun: true })) as BulkDryRun,
    startBulkAction: async (body) => ((await bulk({ ...body, dryRun: false })) as { job: BulkJob }).job,
    listBulkActions: async (query = {}) =>
      (await request<{ items: BulkJob[] }>("GET", "/api/v1/bulk-actions", { query })).items,
    getBulkAction: (id) => request("GET", job(id)),
    listBulkActionItems: (id, query = {}) => request("GET", job(id, "/items"), { query }),
    abortBulkAction: (id) => request("POST", job(id, "/abort")),
    inspectSession: (sessionId) => request("GET", `/api/v1/sessions/${seg(sessionId)}/inspect`),
    cancelQueued: (sessionId, options = {}) =>
      request("POST", `/api/v1/sessions/${seg(sessionId)}/cancel-queued`, { body: options }),
    jams: () => request("GET", "/api/v1/health/jams"),
    repairJams: (kind, options = {}) =>
      request("POST", `/api/v1/health/jams/${seg(kind)}/repair`, { body: options }),
    audit: (query = {}) => request("GET", "/api/v1/audit", { query }),
    whoami: async () => (await request<{ actor: Actor }>("GET", "/api/v1/auth/whoami")).actor,
    pool: () => request("GET", "/api/v1/pool"),
    cordon: (hostId) => order(hostId, "cordon"),
    uncordon: (hostId) => order(hostId, "uncordon"),
    drain: (hostId) => order(hostId, "drain"),
    rollout: (options = {}) => request("POST", "/api/v1/fleet/rollout", { body: options }),
    rolloutProgress: (rolloutId) => request("GET", `/api/v1/fleet/rollout/${seg(rolloutId)}`),
  };
}
