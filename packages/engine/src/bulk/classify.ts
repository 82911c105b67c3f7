import type { RunSummary } from "@oah/contract";
import { type BulkAction, cancelOutcome, checkManualRequeue, REQUEUED } from "@oah/core";

/**
 * What a bulk action would do to a run as it is now: the outcome its job records (the same
 * rules as the store applies under the run's lock: checkManualRequeue, cancelOutcome).
 */
export function bulkOutcome(action: BulkAction, run: RunSummary, includeCancelled: boolean): string {
  if (action === "cancel") return cancelOutcome(run.status, run.metadata.parked === true);
  const check = checkManualRequeue(
    {
      status: run.status,
      errorCode: run.errorCode,
      recoveryState: run.recoveryState,
      metadata: run.metadata,
      hasSession: run.sessionId !== "",
      cancelRequested: run.cancelRequestedAt !== null,
    },
    includeCancelled,
  );
  return check.ok ? REQUEUED : check.code;
}
