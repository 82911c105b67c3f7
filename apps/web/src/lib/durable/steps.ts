import type { RunCheckpoint, RunStep } from "@oah/contract";

/**
 * A step as the run page names it: by its id, the one the API's checkpoints, forks and
 * `run.resumed` events name it by (docs/spec.md §7), shown beside each step.
 */
export const stepLabel = (stepId: number) => `step #${stepId}`;

/**
 * Where a checkpoint sits among the steps: after the last step it covers. One written before any
 * step of its run (after a first sleep or output) comes before them all, as 0; so do those a fork
 * inherited from its source (attempt 0), which cover the source's steps, not its own.
 */
const coveredStep = (checkpoint: Pick<RunCheckpoint, "stepId" | "attempt">) =>
  checkpoint.attempt === 0 ? 0 : (checkpoint.stepId ?? 0);

/** The checkpoints written after each step, by the step's id; those before every step under 0. */
export function checkpointsByStep(checkpoints: readonly RunCheckpoint[]): Map<number, RunCheckpoint[]> {
  const byStep = new Map<number, RunCheckpoint[]>();
  for (const c of checkpoints) {
    const at = coveredStep(c);
    byStep.set(at, [...(byStep.get(at) ?? []), c]);
  }
  return byStep;
}

/**
 * The steps "Run again from here" applies to: a run's own steps (not the system's records) after
 * a checkpoint that covers an earlier step, which a fork goes on from, doing the step and what
 * follows again (docs/spec.md §7). A step with none before it would only run the whole script
 * again: that is a new submission. A checkpoint before every step does not count: a fork takes
 * the source's checkpoints up to the last one written after a step before the one it starts at.
 */
export function forkableSteps(
  steps: readonly Pick<RunStep, "id" | "kind">[],
  checkpoints: readonly Pick<RunCheckpoint, "stepId">[],
): Set<number> {
  const covered = checkpoints.flatMap((c) => (c.stepId === null ? [] : [c.stepId]));
  if (covered.length === 0) return new Set();
  const earliest = Math.min(...covered);
  return new Set(steps.filter((s) => s.kind !== "system" && s.id > earliest).map((s) => s.id));
}

/** What one step's checkpoints say beside it: how many, by which attempts (0: inherited by a fork). */
export function checkpointText(checkpoints: readonly Pick<RunCheckpoint, "attempt">[]): string {
  const attempts = [...new Set(checkpoints.map((c) => c.attempt))];
  const by = attempts.every((a) => a === 0)
    ? "from the run it was forked from"
    : `attempt ${attempts.filter((a) => a > 0).join(", ")}`;
  return `${checkpoints.length === 1 ? "checkpoint" : `${checkpoints.length} checkpoints`} · ${by}`;
}
