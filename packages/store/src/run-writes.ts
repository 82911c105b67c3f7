import type {
  ActiveStatus,
  ManualRequeueFacts,
  RecoveryRecord,
  RecoveryState,
  RunMetadata,
  RunStatus,
} from "@oah/core";
import { hasQueuePlace, hasSession, type RunRow } from "./rows";
import type { Claim, HeartbeatResult, LockedStaleRun, StartResult } from "./run-store";

/**
 * What a store decides outside its statements: the answers, event data and step
 * values every RunStore writes alike, whatever holds its rows.
 */

/** A start the guard refused: blocked behind an earlier unfinished run while queued, else gone. */
export function refusedStart(status: RunStatus | null): StartResult {
  return status === "queued" ? { kind: "blocked" } : { kind: "gone", status };
}

/** An active run a heartbeat reached with its claim. */
export interface HeartbeatRow {
  id: string;
  claim_token: string;
  cancel_requested_at: number | null;
  has_tool_result: number | boolean;
}

/** The heartbeat's answer: claims that reached no active run of theirs are fenced. */
export function heartbeatResult(claims: readonly Claim[], rows: readonly HeartbeatRow[]): HeartbeatResult {
  const alive = new Set(rows.map((r) => `${r.id} ${r.claim_token}`));
  return {
    fenced: claims.filter((c) => !alive.has(`${c.runId} ${c.token}`)).map((c) => c.runId),
    cancelRequested: rows.filter((r) => r.cancel_requested_at !== null).map((r) => r.id),
    toolResultReady: rows.filter((r) => Boolean(r.has_tool_result)).map((r) => r.id),
  };
}

/** The stale run as recovery decides on it, under its lock. */
export function lockedStaleRun(row: RunRow, metadata: RunMetadata): LockedStaleRun {
  return {
    status: row.status as ActiveStatus,
    recoveryAttempts: metadata.recoveryAttempts ?? 0,
    cancelRequested: row.cancel_requested_at !== null,
    hasSession: hasSession(row),
    queueAvailable: hasQueuePlace(row),
  };
}

/** What checkManualRequeue weighs of a run. */
export function manualRequeueFacts(row: RunRow, metadata: RunMetadata): ManualRequeueFacts {
  return {
    status: row.status as RunStatus,
    errorCode: row.error_code,
    recoveryState: row.recovery_state as RecoveryState | null,
    metadata,
    hasSession: hasSession(row),
    cancelRequested: row.cancel_requested_at !== null,
  };
}

/** How recovery ends the steps a stale execution left running. */
export const STALE_STEP_FAILURE = {
  status: "failed",
  errorCode: "worker_recovery_failed",
  errorMessage: "the worker executing this step stopped responding",
} as const;

/** The system step that records a requeue, with the data of its events as output. */
export const REQUEUE_STEP = { kind: "system", name: "run.requeued", status: "completed" } as const;

/** The data of an operator's requeue events: who asked (the caller), and the name it gave, if any. */
export const manualRequeueData = (by: string, claimedBy: string | null, from: RunStatus) => ({
  reason: "manual_operator_requeue",
  requestedBy: by,
  ...(claimedBy ? { claimedBy } : {}),
  from,
});

/** The data of an automatic requeue's events. */
export const recoveryRequeueData = (recovery: RecoveryRecord, from: RunStatus) => ({
  reason: recovery.reason,
  recoveryAttempts: recovery.attempts,
  from,
});

/** The data of the run.cancelled event of a stale run whose cancel recovery honoured. */
export const recoveredCancelData = (by: string, from: ActiveStatus) => ({
  reason: "cancel_requested",
  recoveredBy: by,
  from,
});

/** The error of a stale run that recovery failed, and the data of its run.failed event. */
export function recoveryFailure(from: RunStatus, recovery: RecoveryRecord) {
  const errorMessage = `run was ${from} on a worker that stopped responding (${recovery.reason})`;
  return {
    errorCode: "worker_recovery_failed",
    errorMessage,
    data: {
      errorCode: "worker_recovery_failed",
      errorMessage,
      reason: recovery.reason,
      recoveryState: recovery.state,
    },
  } as const;
}
