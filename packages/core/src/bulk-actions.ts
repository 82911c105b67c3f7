import type { RunStatus } from "./run-status";

/**
 * Bulk actions by filter (docs/spec.md §9): every run that matches a Storage filter is
 * requeued or cancelled, as a job of the store's, in chunks, with each run's outcome kept.
 */
export const BULK_ACTIONS = ["requeue", "cancel"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export const BULK_JOB_STATUSES = ["running", "completed", "aborted", "failed"] as const;
export type BulkJobStatus = (typeof BULK_JOB_STATUSES)[number];

/** What a requeue did to a run: `requeued`, or the code it was refused with (`run_requeue_…`). */
export const REQUEUED = "requeued";

/**
 * What a cancel does to a run, by its state: a queued or parked run ends at once, an
 * executing one is asked to stop (its execution ends it), an ended one is left as it is.
 */
export const CANCEL_OUTCOMES = ["cancelled", "cancel_requested", "run_already_ended"] as const;
export type CancelOutcome = (typeof CANCEL_OUTCOMES)[number];

export function cancelOutcome(status: RunStatus, parked: boolean): CancelOutcome {
  if (status === "queued" || (status === "waiting_tool" && parked)) return "cancelled";
  if (status === "running" || status === "waiting_tool") return "cancel_requested";
  return "run_already_ended";
}

/** The outcomes in which a bulk action acted on the run; the others are refusals or nothing to do. */
export const ACTING_OUTCOMES: Record<BulkAction, readonly string[]> = {
  requeue: [REQUEUED],
  cancel: ["cancelled", "cancel_requested"],
};
