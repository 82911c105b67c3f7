export const RUN_EVENT_TYPES = [
  "run.queued",
  "run.started",
  "run.waiting_tool",
  "run.resumed",
  "run.completed",
  "run.failed",
  "run.timed_out",
  "run.cancelled",
  "run.requeued",
  // A message to a running agent (docs/spec.md §5, Steering): its id is its place among the run's messages.
  "run.message",
  "tool.started",
  "tool.completed",
  "tool.failed",
  "model.started",
  "model.completed",
  "model.failed",
  "model.waited",
  "model.throttled",
  "hook.notice",
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/**
 * Events shown on the streams as they happen and never stored: a model's text as it is
 * written would be a row per token, and the stored `model.completed` keeps the whole of it.
 */
export const LIVE_EVENT_TYPES = ["model.delta"] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

export const STEP_KINDS = ["system", "tool", "model", "hook"] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const STEP_STATUSES = ["running", "completed", "failed"] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** The event a run's move into a terminal status appends. */
export const TERMINAL_EVENT = {
  completed: "run.completed",
  failed: "run.failed",
  cancelled: "run.cancelled",
  timed_out: "run.timed_out",
} as const satisfies Record<string, RunEventType>;

/** When configured hooks run (OAH_HOOKS): around a run's life and around each tool call. */
export const HOOK_EVENTS = ["run.started", "run.finished", "tool.before", "tool.after"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
