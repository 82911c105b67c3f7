import type { CancelResult, InspectedRun, Run, RunEvent } from "@oah/contract";
import { type IfBusy, isActive, isTerminal } from "@oah/core";
import type { Notice } from "../notice";

/** What a submission asked for were its session busy (docs/spec.md §5), as the console says it. */
export const IF_BUSY_TEXT: Record<IfBusy, string> = {
  enqueue: "enqueue: waits its turn",
  reject: "reject: refused while the session is busy",
  interrupt: "interrupt: stops the run executing",
  replace: "replace: ends the session's unfinished runs",
  steer: "steer: a message to the agent run executing",
};

/** A run's policy worth telling on its page: any but the default, which nobody had to choose. */
export const shownPolicy = (ifBusy: IfBusy): string | null =>
  ifBusy === "enqueue" ? null : IF_BUSY_TEXT[ifBusy];

/** Who ended or stopped a run: the later submission's run, or an operator (`runId` null). */
export interface EndedBy {
  label: "Interrupted by" | "Replaced by";
  runId: string | null;
}

export function endedBy({ cancelledBy }: Pick<Run, "cancelledBy">): EndedBy | null {
  if (!cancelledBy) return null;
  return {
    label: cancelledBy.reason === "interrupted" ? "Interrupted by" : "Replaced by",
    runId: cancelledBy.runId,
  };
}

/** What a run's submission ended or stopped (ifBusy interrupt, replace): the reverse of `endedBy`. */
export interface Ended {
  label: "Interrupted" | "Replaced";
  runIds: string[];
}

/** The runs its submission cancelled, as its `run.queued` event lists them (its own first event). */
export function endedRuns(run: Pick<Run, "ifBusy">, events: readonly RunEvent[] | undefined): Ended | null {
  if (run.ifBusy !== "interrupt" && run.ifBusy !== "replace") return null;
  const cancelled = events?.find((e) => e.type === "run.queued")?.data?.cancelled;
  const runIds = Array.isArray(cancelled)
    ? cancelled.filter((id): id is string => typeof id === "string")
    : [];
  if (runIds.length === 0) return null;
  return { label: run.ifBusy === "interrupt" ? "Interrupted" : "Replaced", runIds };
}

/**
 * The run an operator's interrupt stops at its next step boundary: the one executing (a parked
 * run executes nowhere; a cancel ends it, and so would an interrupt).
 */
export const executingRun = (runs: readonly InspectedRun[]): InspectedRun | null =>
  runs.find((r) => isActive(r.status) && !r.parked) ?? null;

/** How an operator's interrupt went: asked to stop, or ended (at once, or before it came). */
export const interruptNotice = ({ runId, status }: CancelResult): Notice => ({
  kind: "ok",
  text: isTerminal(status)
    ? `Run ${runId} ended: ${status}.`
    : `Run ${runId} stops at its next step boundary.`,
});
