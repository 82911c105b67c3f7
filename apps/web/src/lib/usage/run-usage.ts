import type { RunEvent, RunStep } from "@oah/contract";

/** Model calls and the tokens they spent. */
export interface ModelTokens {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** What a run's model calls spent (docs/spec.md §4), in all and by the attempt that made them. */
export interface RunModelUsage extends ModelTokens {
  byAttempt: (ModelTokens & { attempt: number })[];
}

const none = (): ModelTokens => ({ calls: 0, promptTokens: 0, completionTokens: 0 });

const tokensOf = (step: RunStep) =>
  (step.output as { usage?: { promptTokens?: number; completionTokens?: number } | null } | null)?.usage;

/**
 * The completed model steps' usage, each counted to the attempt that was executing when it
 * started (the last `run.started` before it; attempt 1 before any); null for a run with no
 * completed model call.
 */
export function runModelUsage(steps: readonly RunStep[], events: readonly RunEvent[]): RunModelUsage | null {
  const starts = events
    .filter((e) => e.type === "run.started")
    .map((e) => ({
      at: Date.parse(e.at),
      attempt: Number((e.data as { attempt?: unknown } | null)?.attempt ?? 1),
    }));
  const attemptAt = (at: number) => starts.filter((s) => s.at <= at).at(-1)?.attempt ?? 1;
  const total = none();
  const byAttempt = new Map<number, ModelTokens>();
  for (const step of steps) {
    if (step.kind !== "model" || step.status !== "completed") continue;
    const usage = tokensOf(step);
    const attempt = attemptAt(Date.parse(step.startedAt));
    const mine = byAttempt.get(attempt) ?? none();
    byAttempt.set(attempt, mine);
    for (const sum of [total, mine]) {
      sum.calls++;
      sum.promptTokens += usage?.promptTokens ?? 0;
      sum.completionTokens += usage?.completionTokens ?? 0;
    }
  }
  if (total.calls === 0) return null;
  return {
    ...total,
    byAttempt: [...byAttempt].sort(([a], [b]) => a - b).map(([attempt, t]) => ({ attempt, ...t })),
  };
}

/** "3 calls, 1,200 + 80 tokens" (prompt + completion). */
export const tokensText = ({ calls, promptTokens, completionTokens }: ModelTokens): string =>
  `${calls} call${calls === 1 ? "" : "s"}, ${promptTokens.toLocaleString("en-US")} + ${completionTokens.toLocaleString("en-US")} tokens`;
