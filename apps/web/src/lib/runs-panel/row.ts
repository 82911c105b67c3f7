import type { RunSummary } from "@oah/contract";

export const attemptsTitle = (run: RunSummary) =>
  `${run.attempt} executions started; ${run.metadata?.recoveryAttempts ?? 0} automatic requeues`;

/** Why recovery quarantined the run, which the row spells out; other states keep it in a tooltip. */
export const quarantineReason = (run: RunSummary): string | null =>
  run.recoveryState === "quarantined" ? (run.metadata?.recovery?.reason ?? null) : null;
