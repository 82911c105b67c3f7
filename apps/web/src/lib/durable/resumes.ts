import type { RunEvent } from "@oah/contract";
import type { StepKind } from "@oah/core";
import { stepLabel } from "./steps";

/** The data of a `run.resumed` event that went on from a checkpoint (docs/spec.md §7). */
interface CheckpointResume {
  fromCheckpoint: true;
  fromStep: number | null;
  attempt: number;
  avoided: { steps: Partial<Record<StepKind, number>>; modelTokens: number };
  interrupted?: { stepId: number; kind: StepKind; name: string };
  forkedFrom?: { runId: string; stepId: number };
}

/** One resume of the run, as its page says it. */
export interface ResumeLine {
  eventId: number;
  at: string;
  /** Where it went on from and why: "Resumed after step #12 following recovery (attempt 2)". */
  text: string;
  /** What it did not do again. */
  avoided: string;
  /** The step in flight when the execution before died, done again; null when none was. */
  rerun: string | null;
}

const isCheckpointResume = (data: RunEvent["data"]): data is RunEvent["data"] & CheckpointResume =>
  data?.fromCheckpoint === true;

/** The reason a manual requeue records (what recovery records is any other). */
const MANUAL_REQUEUE = "manual_operator_requeue";

const KIND_NOUNS: Record<StepKind, [string, string]> = {
  tool: ["tool step", "tool steps"],
  model: ["model call", "model calls"],
  hook: ["hook", "hooks"],
  system: ["system step", "system steps"],
};

const count = (n: number, [one, many]: [string, string]) =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** What a resume did not do again: its completed steps by kind, and the model tokens they had used. */
export function avoidedText({ steps, modelTokens }: CheckpointResume["avoided"]): string {
  const parts = (Object.keys(KIND_NOUNS) as StepKind[])
    .filter((kind) => (steps[kind] ?? 0) > 0)
    .map((kind) => count(steps[kind]!, KIND_NOUNS[kind]));
  if (modelTokens > 0) parts.push(count(modelTokens, ["model token", "model tokens"]));
  return parts.length > 0 ? `Not done again: ${parts.join(", ")}.` : "Not done again: no completed step.";
}

function whereFrom(resume: CheckpointResume, cause: string): string {
  if (resume.forkedFrom)
    return `Went on from the checkpoint before ${stepLabel(resume.forkedFrom.stepId)} of the run it was forked from (attempt ${resume.attempt})`;
  const where =
    resume.fromStep === null
      ? "from a checkpoint before its first step"
      : `after ${stepLabel(resume.fromStep)}`;
  return `Resumed ${where} following ${cause} (attempt ${resume.attempt})`;
}

/**
 * The run's resumes from a checkpoint, in order, from its events: where each went on from (the
 * step its checkpoint covers: the attempt goes on with the step after it), after what (recovery,
 * an operator's requeue, a fork), what it did not do again and the step it did again. A parked
 * run's resume (§6) is not one: it goes on from where it parked.
 */
export function resumeLines(events: readonly RunEvent[]): ResumeLine[] {
  let cause = "recovery";
  const lines: ResumeLine[] = [];
  for (const event of events) {
    if (event.type === "run.requeued")
      cause = event.data?.reason === MANUAL_REQUEUE ? "a manual requeue" : "recovery";
    if (event.type !== "run.resumed" || !isCheckpointResume(event.data)) continue;
    const resume = event.data;
    lines.push({
      eventId: event.id,
      at: event.at,
      text: whereFrom(resume, cause),
      avoided: avoidedText(resume.avoided),
      rerun: resume.interrupted
        ? `${stepLabel(resume.interrupted.stepId)} (${resume.interrupted.name}) was in flight: done again.`
        : null,
    });
  }
  return lines;
}
