import type { Run } from "@oah/contract";
import { isTerminal } from "@oah/core";

type RequeueFacts = Pick<Run, "status" | "errorCode" | "recoveryState" | "metadata" | "cancelRequestedAt">;

/**
 * How an operator may start a run again, as the API decides it (docs/spec.md §7): `requeue` for failed or
 * timed-out runs that recovery manages (worker_recovery_failed, a recovery state, or a
 * recoveryAttempts count); `explicit` for a run someone asked to cancel (cancelled, or a managed
 * run that ended before the cancel reached it), which starts again only with `includeCancelled`;
 * null otherwise.
 */
export function requeueKind(run: RequeueFacts): "requeue" | "explicit" | null {
  if (run.status === "cancelled") return "explicit";
  if (run.status !== "failed" && run.status !== "timed_out") return null;
  const managed =
    run.errorCode === "worker_recovery_failed" ||
    run.recoveryState !== null ||
    typeof run.metadata?.recoveryAttempts === "number";
  if (!managed) return null;
  return run.cancelRequestedAt === null ? "requeue" : "explicit";
}

/** Whether the Requeue buttons (one run, or a selection) apply: no explicit confirmation needed. */
export const isRequeueEligible = (run: RequeueFacts): boolean => requeueKind(run) === "requeue";

/** A queued run is cancelled at once, an active one aborted; a finished one has nothing to cancel. */
export function isCancellable(run: Pick<Run, "status">): boolean {
  return !isTerminal(run.status);
}
