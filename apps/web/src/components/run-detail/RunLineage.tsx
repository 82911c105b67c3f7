import type { Run, RunSummary } from "@oah/contract";
import Link from "next/link";
import { FORKS_SHOWN, forksHref } from "@/lib/durable/forks";
import { stepLabel } from "@/lib/durable/steps";
import { RunId } from "../RunId";

/**
 * The forks around a run (docs/spec.md §7): the run it was forked from and at which step, and
 * the newest of its forks (`more`: there are more, which the Storage view lists).
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
                The newest {FORKS_SHOWN}; <Link href={forksHref(run.id)}>all its forks</Link> in Storage.
              </span>
            ) : null}
          </dd>
        </div>
      ) : null}
    </>
  );
}
