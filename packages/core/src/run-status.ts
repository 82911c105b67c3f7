export const RUN_STATUSES = [
  "queued",
  "running",
  "waiting_tool",
  "completed",
  "failed",
  "cancelled",
  "timed_out",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const ACTIVE_STATUSES = ["running", "waiting_tool"] as const satisfies readonly RunStatus[];
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];

export const TERMINAL_STATUSES = [
  "completed",
  "failed",
  "cancelled",
  "timed_out",
] as const satisfies readonly RunStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

/**
 * The ends of a run cut short (a cancel, whatever its cause; the run's own timeout) whose
 * conversation, closed, the session's next agent run goes on from when it has checkpoints
 * (docs/spec.md §12, *The agent executor*).
 */
export const INTERRUPTED_STATUSES = ["cancelled", "timed_out"] as const satisfies readonly TerminalStatus[];
export type InterruptedStatus = (typeof INTERRUPTED_STATUSES)[number];

export function isInterrupted(status: RunStatus): status is InterruptedStatus {
  return (INTERRUPTED_STATUSES as readonly RunStatus[]).includes(status);
}

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly RunStatus[]).includes(status);
}

export function isActive(status: RunStatus): status is ActiveStatus {
  return (ACTIVE_STATUSES as readonly RunStatus[]).includes(status);
}

/**
 * Transitions an execution may make (docs/spec.md §4). A status never moves to itself:
 * running → running would mean a second execution of the same run.
 */
const EXECUTION_TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  queued: ["running", "cancelled", "failed"],
  running: ["waiting_tool", "completed", "failed", "cancelled", "timed_out"],
  waiting_tool: ["running", "completed", "failed", "cancelled", "timed_out"],
  completed: [],
  failed: [],
  cancelled: [],
  timed_out: [],
};

/**
 * The only ways back to `queued` (docs/spec.md §7): automatic recovery of a stale active
 * run, and an operator's manual requeue of a failed or timed-out run, or of a
 * cancelled one when asked explicitly (`includeCancelled`).
 */
const REQUEUE_TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  queued: [],
  running: ["queued"],
  waiting_tool: ["queued"],
  completed: [],
  failed: ["queued"],
  cancelled: ["queued"],
  timed_out: ["queued"],
};

export type TransitionKind = "execution" | "requeue";

export function canTransition(from: RunStatus, to: RunStatus, kind: TransitionKind = "execution"): boolean {
  const table = kind === "execution" ? EXECUTION_TRANSITIONS : REQUEUE_TRANSITIONS;
  return table[from].includes(to);
}
