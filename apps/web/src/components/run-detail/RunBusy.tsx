import type { Run, RunEvent } from "@oah/contract";
import { endedBy, endedRuns, shownPolicy } from "@/lib/busy/policy";
import { RunId } from "../RunId";

/**
 * A busy session's submissions around a run (docs/spec.md §5), both ways: who interrupted or
 * replaced it, and which runs its own submission interrupted or replaced, with the policy it used.
 */
export function RunBusy({ run, events }: { run: Run; events: RunEvent[] | undefined }) {
  const by = endedBy(run);
  const ended = endedRuns(run, events);
  const policy = shownPolicy(run.ifBusy);
  return (
    <>
      {policy ? (
        <div>
          <dt>if busy</dt>
          <dd data-testid="if-busy">{policy}</dd>
        </div>
      ) : null}
      {by ? (
        <div className="span-2">
          <dt>{by.label === "Interrupted by" ? "interrupted" : "replaced"}</dt>
          <dd data-testid="ended-by">
            {by.label} {by.runId ? <RunId id={by.runId} /> : "an operator"}
          </dd>
        </div>
      ) : null}
      {ended ? (
        <div className="span-2">
          <dt>{ended.label === "Interrupted" ? "interrupted" : "replaced"}</dt>
          <dd data-testid="ended-runs">
            {ended.label}{" "}
            {ended.runIds.map((id, i) => (
              <span key={id}>
                {i > 0 ? ", " : null}
                <RunId id={id} />
              </span>
            ))}
          </dd>
        </div>
      ) : null}
    </>
  );
}
