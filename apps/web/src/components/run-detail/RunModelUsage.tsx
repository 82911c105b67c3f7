import type { RunEvent, RunStep } from "@oah/contract";
import { runModelUsage, tokensText } from "@/lib/usage/run-usage";

/** The run's model calls and tokens (prompt + completion), and each attempt's when it had more than one. */
export function RunModelUsage({
  steps,
  events,
}: {
  steps: RunStep[] | undefined;
  events: RunEvent[] | undefined;
}) {
  const usage = steps && events ? runModelUsage(steps, events) : null;
  if (!usage) return null;
  return (
    <div className="span-2">
      <dt>model</dt>
      <dd data-testid="run-model-usage">
        {tokensText(usage)}
        {usage.byAttempt.length > 1 ? (
          <span className="subtle">
            {" "}
            ({usage.byAttempt.map((a) => `attempt ${a.attempt}: ${tokensText(a)}`).join("; ")})
          </span>
        ) : null}
      </dd>
    </div>
  );
}
