import {
  type ActiveStatus,
  type ManualRequeueFacts,
  OahError,
  type RecoveryRecord,
  type RecoveryState,
  type RunMetadata,
  type RunStatus,
} from "@oah/core";
import { hasQueuePlace, hasSession, type RunRow } from "./rows";
import type { Claim, HeartbeatResult, LockedStaleRun, NewRun, StartResult } from "./run-store";

/**
 * What a store decides outside its statements: the answers, event data and step
 * values every RunStore writes alike, whatever holds its rows.
 */

/** The workspace a session's first run makes it belong to when the run names none. */
export const DEFAULT_WORKSPACE = "default";

/**
 * The workspace each session of a batch belongs to (docs/spec.md §3): the one it has, else the
 * workspace of its first run in the batch.
 */
export function sessionOwners(
  runs: readonly Pick<NewRun, "sessionId" | "workspaceId">[],
  existing: ReadonlyMap<string, string>,
): Map<string, string> {
  const owners = new Map(existing);
  for (const r of runs)
    if (!owners.has(r.sessionId)) owners.set(r.sessionId, r.workspaceId ?? DEFAULT_WORKSPACE);
  return owners;
}

/** A submission's workspace, given its session's: the one it names must be that one. */
export const joinsOwner = (run: Pick<NewRun, "workspaceId">, owner: string | undefined): boolean =>
  run.workspaceId === null || run.workspaceId === owner;

/**
 * A submission into a session of another workspace, refused. The session's own workspace is not
 * named: the caller may not be allowed to know it.
 */
export const workspaceMismatch = (run: { sessionId: string; workspaceId: string | null }): OahError =>
  new OahError(
    "session_workspace_mismatch",
    `session ${run.sessionId} belongs to another workspace than ${run.workspaceId}: every run of a session is in ` +
      "the workspace of its first run",
  );

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
