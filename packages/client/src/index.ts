/** The API's types the client's calls take and give, for its users to name them. */
export type {
  CancelResult,
  HostOrderAccepted,
  JsonValue,
  LiveRunEvent,
  PoolOverview,
  RequeueAccepted,
  Run,
  RunEvent,
  RunStep,
  StreamedEvent,
  SubmitRunRequest,
  SubmitRunResult,
  ToolResultAccepted,
} from "@oah/contract";
export type { ApiErrorCode, RunStatus } from "@oah/core";
export {
  type ClientOptions,
  createClient,
  type FetchLike,
  type OahClient,
  type Page,
  type PageOptions,
  type RequeueOptions,
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
