import type { Run, RunSummary } from "@oah/contract";
import { FORKS_SCAN } from "@/lib/durable/forks";
import { stepLabel } from "@/lib/durable/steps";
import { RunId } from "../RunId";

/**
 * The forks around a run (docs/spec.md §7): the run it was forked from and at which step, and
 * the forks of it among the runs of its session after it (a page of them: `more` says whether
 * there are more it did not read).
 */
export function RunLineage({
  run,
  forks,
  more,
}: {
  run: Run;
  forks: RunSummary[] | undefined;
  more: boolean;
}) {
  return (
    <>
      {run.forkedFrom ? (
        <div className="span-2">
          <dt>forked from</dt>
          <dd data-testid="forked-from">
            run <RunId id={run.forkedFrom.runId} /> at {stepLabel(run.forkedFrom.stepId)}
          </dd>
        </div>
      ) : null}
      {forks?.length ? (
        <div className="span-2">
          <dt>forks</dt>
          <dd>
            <ul className="forks" aria-label="Forks">
              {forks.map((f) => (
                <li key={f.id}>
                  <RunId id={f.id} /> at {f.forkedFrom ? stepLabel(f.forkedFrom.stepId) : "—"}{" "}
                  <span className="subtle">{f.status}</span>
                </li>
              ))}
            </ul>
            {more ? (
              <span className="muted small">
                Among the next {FORKS_SCAN} runs of its session; later ones are not read.
              </span>
            ) : null}
          </dd>
        </div>
      ) : null}
    </>
  );
}
