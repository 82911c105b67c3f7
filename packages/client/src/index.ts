/** The API's types the client's calls take and give, for its users to name them. */
export type {
  AuditEntry,
  AuditPage,
  BulkDryRun,
  BulkJob,
  BulkJobItem,
  BulkJobItemsPage,
  CancelQueuedResult,
  CancelResult,
  DeadLetters,
  HostOrderAccepted,
  JamCounts,
  JamRepair,
  JamReport,
  JsonValue,
  LiveRunEvent,
  PoolOverview,
  RequeueAccepted,
  RequeueItem,
  Rollout,
  Run,
  RunEvent,
  RunStep,
  RunSummary,
  SessionInspection,
  StorageOverview,
  StorageRunFilters,
  StorageRunsPage,
  StreamedEvent,
  SubmitManyResult,
  SubmitRunRequest,
  SubmitRunResult,
  ToolResultAccepted,
} from "@oah/contract";
export type { Actor, ApiErrorCode, BulkAction, JamKind, RunStatus } from "@oah/core";
export type { BulkActionRequest, OahAdminCalls, RequeueOptions, StorageRunsQuery } from "./admin";
export {
  createClient,
  type OahClient,
  type Page,
  type PageOptions,
  type WaitOptions,
} from "./client";
export {
  type ApiIssue,
  isOahApiError,
  OahApiError,
  type OahApiErrorInit,
  OahNetworkError,
  OahWaitTimeout,
} from "./errors";
export type { EventsOptions, EventsTarget, ReconnectOptions } from "./events";
export type { ClientOptions, FetchLike } from "./transport";
