import type { Run } from "@oah/contract";
import { CANCELLABLE_STATUSES } from "./constants";

/**
 * Whether an operator may requeue a run (SPEC §7, as the API decides it): failed or timed out,
 * and managed by recovery (worker_recovery_failed, a recovery state, or a recoveryAttempts count).
 */
export function isRequeueEligible(
  run: Pick<Run, "status" | "errorCode" | "recoveryState" | "metadata">,
): boolean {
  if (run.status !== "failed" && run.status !== "timed_out") return false;
  return (
    run.errorCode === "worker_recovery_failed" ||
    run.recoveryState !== null ||
    typeof run.metadata?.recoveryAttempts === "number"
  );
}

export function isCancellable(run: Pick<Run, "status">): boolean {
  return CANCELLABLE_STATUSES.includes(run.status);
}
