import type { Run, RunEvent, RunSummary as RunListItem, RunStep } from "@oah/contract";
import { duration } from "@/lib/format";
import { Code } from "../Badges";
import { RunId } from "../RunId";
import { RunBusy } from "./RunBusy";
import { RunLineage } from "./RunLineage";
import { RunModelUsage } from "./RunModelUsage";
import { RunTimeline } from "./RunTimeline";

export function RunSummary({
  run,
  events,
  steps,
  forks,
  moreForks,
}: {
  run: Run;
  /** Its steps, whose model calls say what it spent. */
  steps: RunStep[] | undefined;
  /** Its events, from which its submission's `run.queued` tells what that submission ended. */
  events: RunEvent[] | undefined;
  forks: RunListItem[] | undefined;
  moreForks: boolean;
}) {
  return (
    <section className="panel" aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <dl className="facts facts-grid">
        <div>
          <dt>session</dt>
          <dd className="mono">
            {run.sessionId} <span className="subtle">#{run.seq}</span>
          </dd>
        </div>
        <div>
          <dt>workspace</dt>
          <dd className="mono">{run.workspaceId}</dd>
        </div>
        <div>
          <dt>priority</dt>
          <dd>{run.priority}</dd>
        </div>
        <div>
          <dt>executor</dt>
          <dd className="mono">{run.executor}</dd>
        </div>
        <div>
          <dt>attempt</dt>
          <dd>{run.attempt}</dd>
        </div>
        <div>
          <dt>timeout</dt>
          <dd>{duration(run.timeoutMs)}</dd>
        </div>
        <div>
          <dt>worker</dt>
          <dd className="mono ellipsis" title={run.workerId ?? undefined}>
            {run.workerId ?? "—"}
          </dd>
        </div>
        <div>
          <dt>parent run</dt>
          <dd>{run.parentRunId ? <RunId id={run.parentRunId} /> : "—"}</dd>
        </div>
        <RunLineage run={run} forks={forks} more={moreForks} />
        <RunBusy run={run} events={events} />
        <RunModelUsage steps={steps} events={events} />
        {run.waitingTool ? (
          <div>
            <dt>waiting for tool</dt>
            <dd className="mono">{run.waitingTool}</dd>
          </div>
        ) : null}
        <div className="span-2">
          <dt>error</dt>
          <dd>
            <Code>{run.errorCode}</Code> {run.errorMessage ? <span>{run.errorMessage}</span> : null}
          </dd>
        </div>
      </dl>
      <h3>Timeline</h3>
      <RunTimeline run={run} />
    </section>
  );
}
