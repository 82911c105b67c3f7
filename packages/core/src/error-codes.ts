/** Why a run failed or ended (docs/spec.md §4). Stored in `runs.error_code`. */
export const RUN_ERROR_CODES = [
  "worker_recovery_failed",
  "run_timed_out",
  "tool_timed_out",
  "tool_failed",
  "model_timed_out",
  "model_failed",
  // A model call found no capacity under OAH_MODEL_LIMITS within OAH_MODEL_LIMIT_MAX_WAIT_MS, or the
  // provider kept answering 429 (docs/spec.md §6, *Model limits*).
  "model_rate_limited",
  "hook_execution_failed",
  "executor_failed",
  "invalid_run_transition",
  // A command-running step on a host that runs none (OAH_SHELL=off).
  "shell_disabled",
  // A command-running step on a host that cannot make the commands' jail (the message says why).
  "commands_unavailable",
  // The run's workspace does not resolve to a directory under OAH_WORKSPACE_ROOT.
  "workspace_invalid",
  // A command was in flight when its execution died, and its policy (onInterrupt: fail) leaves the
  // decision to a person: recovery quarantined the run (docs/spec.md §7).
  "step_interrupted",
  // Cancelled for a later submission to its session: with ifBusy interrupt, or replace (docs/spec.md §5).
  "interrupted",
  "replaced",
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/** Codes of refused operator requeues (docs/spec.md §7, §12). */
export const REQUEUE_ERROR_CODES = [
  "run_requeue_invalid_status",
  "run_requeue_not_supported",
  "run_requeue_unavailable",
  "run_requeue_failed",
  "run_requeue_cancel_requested",
] as const;
export type RequeueErrorCode = (typeof REQUEUE_ERROR_CODES)[number];

/** Codes of the API's error envelope `{"error":{"code","message"}}`, with their HTTP status. */
export const API_ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  shell_disabled: 400,
  commands_unavailable: 400,
  unauthorized: 401,
  forbidden_origin: 403,
  forbidden: 403,
  run_not_found: 404,
  step_not_found: 404,
  session_not_found: 404,
  not_found: 404,
  host_not_found: 404,
  rollout_not_found: 404,
  bulk_job_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_run_transition: 409,
  run_requeue_invalid_status: 409,
  run_requeue_not_supported: 409,
  run_requeue_unavailable: 409,
  run_requeue_failed: 409,
  run_requeue_cancel_requested: 409,
  tool_result_unknown_run: 409,
  tool_result_not_waiting: 409,
  tool_result_wrong_name: 409,
  idempotency_key_conflict: 409,
  session_workspace_mismatch: 409,
  session_busy: 409,
  // A message to a run that has ended, or to one of an executor that takes none (docs/spec.md §5).
  run_already_ended: 409,
  run_not_steerable: 409,
  controller_unavailable: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_headers_too_large: 431,
  too_many_attempts: 429,
  too_many_streams: 429,
  too_many_actions: 429,
  store_unavailable: 503,
  disk_full: 503,
  internal_error: 500,
} as const;
export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/** An error the API reports with its own code; anything else is an `internal_error`. */
export class OahError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ApiErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "OahError";
    this.code = code;
    this.status = API_ERROR_STATUS[code];
    this.details = details;
  }
}

/** An atomic batch of submissions refused for one of them: nothing was written. */
export const batchRefusal = (index: number, refused: OahError): OahError =>
  new OahError(refused.code, `nothing was submitted: runs[${index}]: ${refused.message}`);

/** How a run past its deadline ends, wherever it is found so: executing, or parked. */
export const runTimedOutError = (timeoutMs: number) =>
  ({ errorCode: "run_timed_out", errorMessage: `run exceeded its timeout of ${timeoutMs} ms` }) as const;
