import type { RunCheckpoint } from "@oah/contract";
import { stepLabel } from "./steps";

/**
 * Where a requeued run starts (docs/spec.md §7): from its last checkpoint (the API's default: it
 * goes on with the step after the one the checkpoint covers), or over from its first step, its
 * checkpoints dropped (`fromStart`).
 */
export type RequeueFrom = "checkpoint" | "start";

export const START_OVER = "Start over from the first step (its checkpoints dropped)";

/** The choice's label for one run: the step its last checkpoint covers; null when it has none (nothing to choose). */
export function resumeChoice(checkpoints: readonly Pick<RunCheckpoint, "stepId">[]): string | null {
  const last = checkpoints.at(-1);
  if (!last) return null;
  return last.stepId === null
    ? "Resume from its last checkpoint (before its first step)"
    : `Resume after ${stepLabel(last.stepId)}, its last checkpoint`;
}

/** The choice's label for several runs, whose checkpoints the console does not read one by one. */
export const RESUME_EACH =
  "Resume each from its last checkpoint (one without any starts from its first step)";

/** The requeue's input for the choice: the API resumes unless told `fromStart`. */
export const requeueFromInput = (from: RequeueFrom): { fromStart?: true } =>
  from === "start" ? { fromStart: true } : {};
