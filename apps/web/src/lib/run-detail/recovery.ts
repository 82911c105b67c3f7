import type { Run } from "@oah/contract";

type RecoveryFacts = Pick<Run, "recoveryState" | "metadata">;

/** Whether recovery (or an operator) ever acted on the run. */
export const recoveryActed = (run: RecoveryFacts): boolean =>
  Boolean(run.metadata?.recovery) ||
  run.recoveryState !== null ||
  run.metadata?.recoveryAttempts !== undefined;

/** Attempts against the policy's maximum; a run without a recovery record has only its count. */
export function recoveryAttemptsText(run: RecoveryFacts): string {
  const recovery = run.metadata?.recovery;
  if (recovery) return `${recovery.attempts} / ${recovery.maxAttempts}`;
  return String(run.metadata?.recoveryAttempts ?? "—");
}

export function lastOutcomeText(run: RecoveryFacts): string {
  const outcome = run.metadata?.recovery?.lastOutcome;
  return outcome ? `${outcome.from} → ${outcome.to}` : "—";
}
