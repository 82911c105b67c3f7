import type { BulkDryRun, BulkJob } from "@oah/contract";
import { ACTING_OUTCOMES, type BulkAction } from "@oah/core";

/** One outcome of a dry run or a job: how many runs, whether the action acts on them, a few of them. */
export interface OutcomeRow {
  outcome: string;
  count: number;
  acts: boolean;
  examples: string[];
}

/** The outcomes that act first, then the refusals, the larger first within each. */
export function outcomeRows(
  action: BulkAction,
  outcomes: Record<string, number>,
  examples: Record<string, string[]> = {},
): OutcomeRow[] {
  const acting = ACTING_OUTCOMES[action];
  return Object.entries(outcomes)
    .map(([outcome, count]) => ({
      outcome,
      count,
      acts: acting.includes(outcome),
      examples: examples[outcome] ?? [],
    }))
    .sort(
      (a, b) => Number(b.acts) - Number(a.acts) || b.count - a.count || a.outcome.localeCompare(b.outcome),
    );
}

/** How many of the matched runs the action would act on. */
export function actingCount(action: BulkAction, dryRun: BulkDryRun): number {
  return ACTING_OUTCOMES[action].reduce((n, outcome) => n + (dryRun.outcomes[outcome] ?? 0), 0);
}

export const ACTION_VERB: Record<BulkAction, { verb: string; gerund: string }> = {
  requeue: { verb: "Requeue", gerund: "requeuing" },
  cancel: { verb: "Cancel", gerund: "cancelling" },
};

/** The share of a job done, as a whole per cent (0 of 0 is done). */
export function percentDone(job: Pick<BulkJob, "done" | "total">): number {
  return job.total === 0 ? 100 : Math.floor((job.done / job.total) * 100);
}
