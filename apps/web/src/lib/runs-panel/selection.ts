import type { RunSummary } from "@oah/contract";

/** The runs chosen for a bulk requeue, by id; they stay chosen across pages. */
export type Selection = ReadonlyMap<string, RunSummary>;

/** The selection with the runs added (`on`) or taken out. */
export function withRuns(selection: Selection, runs: readonly RunSummary[], on: boolean): Selection {
  const next = new Map(selection);
  for (const run of runs) {
    if (on) next.set(run.id, run);
    else next.delete(run.id);
  }
  return next;
}

export function withoutRun(selection: Selection, runId: string): Selection {
  const next = new Map(selection);
  next.delete(runId);
  return next;
}

/** How much of a page is selected: all of it, some (the select-all box shows indeterminate), or none. */
export function pageSelection(rows: readonly RunSummary[], selection: Selection): "all" | "some" | "none" {
  const count = rows.filter((r) => selection.has(r.id)).length;
  if (rows.length > 0 && count === rows.length) return "all";
  return count > 0 ? "some" : "none";
}

export const selectionText = (size: number) => (size === 0 ? "No run selected" : `${size} selected`);
