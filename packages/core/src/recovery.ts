import type { RequeueErrorCode } from "./error-codes";
import type { StepKind } from "./events";
import type { ActiveStatus, RunStatus } from "./run-status";

export const RECOVERY_STRATEGIES = ["fail", "requeue_running", "requeue_all"] as const;
export type RecoveryStrategy = (typeof RECOVERY_STRATEGIES)[number];

export const RECOVERY_STATES = ["requeued", "failed", "quarantined"] as const;
export type RecoveryState = (typeof RECOVERY_STATES)[number];

export const RECOVERY_REASONS = [
  "automatic_requeue",
  "manual_operator_requeue",
  "fail_closed",
  "max_attempts_exhausted",
  "waiting_tool_manual_resume_required",
  "requeue_unavailable",
  "session_missing",
  // A command in flight when its execution died, whose policy says a person decides (onInterrupt: fail).
  "step_interrupted",
] as const;
export type RecoveryReason = (typeof RECOVERY_REASONS)[number];

export interface DeadLetter {
  status: "quarantined";
  reason: RecoveryReason;
  at: string;
}

/** `metadata.recovery`: kept in step with `metadata.recoveryAttempts` and the `recovery_state` column. */
export interface RecoveryRecord {
  state: RecoveryState;
  strategy: RecoveryStrategy | "manual";
  attempts: number;
  maxAttempts: number;
  /** The status the run had when recovery (or the operator) last acted on it. */
  lastOutcome: { from: RunStatus; to: RunStatus };
  lastRecoveredBy: string | null;
  lastRecoveredAt: string | null;
  reason: RecoveryReason;
  manualRequeueCount: number;
  lastManualRequeueAt: string | null;
  /** Who asked for the last manual requeue: the caller's token's name (`local` without tokens). */
  lastManualRequeueBy: string | null;
  /** The name that caller gave as who asks (`requestedBy`), when it gave one: its word, not a fact. */
  lastManualRequeueClaimedBy?: string;
  deadLetter?: DeadLetter;
}

/**
 * `metadata.resumed`: the last attempt that went on from a checkpoint (docs/spec.md §7), what it
 * did not do again (the completed steps by kind, the model tokens they had used), and the step in
 * flight when the attempt before it died, which it did again.
 */
export interface ResumeRecord {
  attempt: number;
  /** The last step the checkpoint covers (null: none, the run went on from its first). */
  fromStep: number | null;
  avoided: { steps: Partial<Record<StepKind, number>>; modelTokens: number };
  rerun: { stepId: number; kind: StepKind } | null;
  at: string;
}

export interface RunMetadata {
  recoveryAttempts?: number;
  recovery?: RecoveryRecord;
  resumed?: ResumeRecord;
  /** Present (true) while the run is parked in `waiting_tool`: it holds no worker and no slot. */
  parked?: true;
  [key: string]: unknown;
}

export interface RecoveryPolicy {
  strategy: RecoveryStrategy;
  maxAttempts: number;
}

/** What a command does when the execution running it dies (docs/spec.md §7): run again, or wait for a person. */
export const ON_INTERRUPT = ["rerun", "fail"] as const;
export type OnInterrupt = (typeof ON_INTERRUPT)[number];

export interface StaleRunFacts {
  status: ActiveStatus;
  /** Automatic requeues so far (`metadata.recoveryAttempts`). */
  recoveryAttempts: number;
  /** Someone asked to cancel the run (`cancelRequestedAt`) before its execution went stale. */
  cancelRequested: boolean;
  /**
   * The host that executes the run still holds a live lease that lists it: the execution,
   * and the processes of its steps, may still be running.
   */
  executionAlive: boolean;
  hasSession: boolean;
  queueAvailable: boolean;
  /**
   * A waiting run's next attempt can go on into the same wait: the run has a checkpoint to resume
   * from. Always true of a running run (one without a checkpoint starts from its first step).
   */
  resumable: boolean;
  /** The command that was in flight when the execution died, by its policy; null: none was. */
  interrupted: OnInterrupt | null;
}

/** What recovery records on a run it requeues or fails (`metadata.recovery`). */
export type RecoveryDecision =
  | { action: "requeue"; state: "requeued"; reason: "automatic_requeue" }
  | { action: "fail"; state: "failed" | "quarantined"; reason: RecoveryReason };

/**
 * What recovery does with one stale run: a recovery decision; `cancel`, the run ends
 * `cancelled` as asked (no requeue, nothing of the retry budget used); `wait`, nothing yet.
 */
export type StaleRunAction = RecoveryDecision | { action: "cancel" } | { action: "wait" };

/**
 * What recovery does with one stale active run (docs/spec.md §7 and §13). Nothing while the
 * execution may still be alive: a run is never executed twice at once, side effects
 * included. A requested cancel is honoured, never lost to a requeue. `fail` is
 * fail-closed by design (state `failed`); a requeue strategy that cannot requeue
 * quarantines the run, because an operator has to look at it.
 */
export function decideStaleRunRecovery(facts: StaleRunFacts, policy: RecoveryPolicy): StaleRunAction {
  if (facts.executionAlive) return { action: "wait" };
  if (facts.cancelRequested) return { action: "cancel" };
  if (policy.strategy === "fail") return { action: "fail", state: "failed", reason: "fail_closed" };
  if (facts.status === "waiting_tool" && !facts.resumable) {
    return { action: "fail", state: "quarantined", reason: "waiting_tool_manual_resume_required" };
  }
  if (facts.interrupted === "fail")
    return { action: "fail", state: "quarantined", reason: "step_interrupted" };
  if (!facts.queueAvailable) return { action: "fail", state: "quarantined", reason: "requeue_unavailable" };
  if (!facts.hasSession) return { action: "fail", state: "quarantined", reason: "session_missing" };
  if (facts.recoveryAttempts >= policy.maxAttempts) {
    return { action: "fail", state: "quarantined", reason: "max_attempts_exhausted" };
  }
  return { action: "requeue", state: "requeued", reason: "automatic_requeue" };
}

export interface RecoveryContext {
  policy: RecoveryPolicy;
  from: ActiveStatus;
  by: string;
  at: Date;
}

/** The metadata a recovery decision leaves on the run: `recoveryAttempts` and `recovery` move together. */
export function recordRecovery(
  metadata: RunMetadata,
  decision: RecoveryDecision,
  ctx: RecoveryContext,
): RunMetadata {
  const previous = metadata.recovery;
  const attempts = (metadata.recoveryAttempts ?? 0) + (decision.action === "requeue" ? 1 : 0);
  const at = ctx.at.toISOString();
  const recovery: RecoveryRecord = {
    state: decision.state,
    strategy: ctx.policy.strategy,
    attempts,
    maxAttempts: ctx.policy.maxAttempts,
    lastOutcome: { from: ctx.from, to: decision.action === "requeue" ? "queued" : "failed" },
    lastRecoveredBy: ctx.by,
    lastRecoveredAt: at,
    reason: decision.reason,
    manualRequeueCount: previous?.manualRequeueCount ?? 0,
    lastManualRequeueAt: previous?.lastManualRequeueAt ?? null,
    lastManualRequeueBy: previous?.lastManualRequeueBy ?? null,
    ...claimedBy(previous?.lastManualRequeueClaimedBy),
  };
  if (decision.state === "quarantined")
    recovery.deadLetter = { status: "quarantined", reason: decision.reason, at };
  return { ...metadata, recoveryAttempts: attempts, recovery };
}

export type ManualRequeueCheck =
  | { ok: true }
  | {
      ok: false;
      code: Exclude<RequeueErrorCode, "run_requeue_failed">;
      message: string;
    };

export interface ManualRequeueFacts {
  status: RunStatus;
  errorCode: string | null;
  recoveryState: RecoveryState | null;
  metadata: RunMetadata;
  hasSession: boolean;
  /** Someone asked to cancel the run (`cancelRequestedAt`). */
  cancelRequested: boolean;
}

/**
 * Whether an operator may requeue a run (docs/spec.md §7): failed or timed-out runs that
 * recovery manages, since only for those is a second execution known to be what
 * the first one should have been. A run someone asked to cancel (cancelled, or
 * ended otherwise before the cancel reached it) starts again only when the
 * operator says so explicitly (`includeCancelled`).
 */
export function checkManualRequeue(run: ManualRequeueFacts, includeCancelled = false): ManualRequeueCheck {
  if (run.status === "cancelled" && includeCancelled) {
    if (!run.hasSession)
      return { ok: false, code: "run_requeue_unavailable", message: "the run has no session" };
    return { ok: true };
  }
  if (run.status !== "failed" && run.status !== "timed_out") {
    return {
      ok: false,
      code: "run_requeue_invalid_status",
      message:
        run.status === "cancelled"
          ? "a cancelled run is requeued only when asked explicitly (includeCancelled)"
          : `a ${run.status} run cannot be requeued; only failed or timed-out runs can`,
    };
  }
  const managed =
    run.errorCode === "worker_recovery_failed" ||
    run.recoveryState !== null ||
    typeof run.metadata.recoveryAttempts === "number";
  if (!managed) {
    return {
      ok: false,
      code: "run_requeue_not_supported",
      message: "only runs that stale-run recovery failed, quarantined or requeued can be requeued by hand",
    };
  }
  if (run.cancelRequested && !includeCancelled) {
    return {
      ok: false,
      code: "run_requeue_cancel_requested",
      message: "the run's cancel was requested; requeue it with includeCancelled to start it again anyway",
    };
  }
  if (!run.hasSession)
    return { ok: false, code: "run_requeue_unavailable", message: "the run has no session" };
  return { ok: true };
}

/** The name a caller claimed, as a record keeps it: only when there is one. */
const claimedBy = (name: string | null | undefined) => (name ? { lastManualRequeueClaimedBy: name } : {});

/**
 * The metadata of a manual requeue: a fresh automatic budget, the dead letter lifted, who asked
 * (the caller), the name it gave beside it, and when recorded.
 */
export function recordManualRequeue(
  metadata: RunMetadata,
  ctx: { from: RunStatus; by: string; claimedBy: string | null; at: Date; maxAttempts: number },
): RunMetadata {
  const previous = metadata.recovery;
  const at = ctx.at.toISOString();
  const recovery: RecoveryRecord = {
    state: "requeued",
    strategy: "manual",
    attempts: 0,
    maxAttempts: ctx.maxAttempts,
    lastOutcome: { from: ctx.from, to: "queued" },
    lastRecoveredBy: previous?.lastRecoveredBy ?? null,
    lastRecoveredAt: previous?.lastRecoveredAt ?? null,
    reason: "manual_operator_requeue",
    manualRequeueCount: (previous?.manualRequeueCount ?? 0) + 1,
    lastManualRequeueAt: at,
    lastManualRequeueBy: ctx.by,
    ...claimedBy(ctx.claimedBy),
  };
  return { ...metadata, recoveryAttempts: 0, recovery };
}
