import type { RebalanceReason, RecoveryState, RunErrorCode, RunStatus } from "@oah/core";

// The values of @oah/core, repeated here so that no server module reaches the browser bundle;
// `satisfies` and the checks below keep them in step with the core's types.
export const RUN_STATUSES = [
  "queued",
  "running",
  "waiting_tool",
  "completed",
  "failed",
  "cancelled",
  "timed_out",
] as const satisfies readonly RunStatus[];

export const RUN_ERROR_CODES = [
  "worker_recovery_failed",
  "run_timed_out",
  "tool_timed_out",
  "tool_failed",
  "model_timed_out",
  "model_failed",
  "hook_execution_failed",
  "executor_failed",
  "invalid_run_transition",
  "shell_disabled",
  "workspace_invalid",
] as const satisfies readonly RunErrorCode[];

export const RECOVERY_STATES = [
  "requeued",
  "failed",
  "quarantined",
] as const satisfies readonly RecoveryState[];

export const REBALANCE_REASONS = [
  "startup",
  "scale_up",
  "scale_down",
  "cooldown_hold",
  "steady",
  "shutdown",
] as const satisfies readonly RebalanceReason[];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const exhaustive: [
  Same<(typeof RUN_STATUSES)[number], RunStatus>,
  Same<(typeof RUN_ERROR_CODES)[number], RunErrorCode>,
  Same<(typeof RECOVERY_STATES)[number], RecoveryState>,
  Same<(typeof REBALANCE_REASONS)[number], RebalanceReason>,
] = [true, true, true, true];
void exhaustive;

/** Statuses a cancel applies to (a queued run is cancelled at once; an active one is aborted). */
export const CANCELLABLE_STATUSES: readonly RunStatus[] = ["queued", "running", "waiting_tool"];

/** How often live data is refetched. */
export const REFRESH_MS = 3_000;
