import type { RunCheckpoint, RunStep } from "@oah/contract";
import type { ReactNode } from "react";
import { checkpointsByStep, checkpointText, forkableSteps, stepLabel } from "@/lib/durable/steps";
import { between, duration, json } from "@/lib/format";
import { type Writing, writingText } from "@/lib/live/run-stream";
import type { SteeringOnSteps } from "@/lib/steering/messages";
import { Code } from "../Badges";
import { ErrorState } from "../ErrorBanner";
import { Time } from "../Time";
import { SteeringMessages } from "./SteeringMessages";

/** A step's (or the run's first) checkpoints: after it, a later attempt or a fork goes on from there. */
function CheckpointMark({ checkpoints }: { checkpoints: RunCheckpoint[] | undefined }) {
  if (!checkpoints?.length) return null;
  return (
    <p className="checkpoint-mark small" data-testid="checkpoint">
      <span aria-hidden="true">◆</span> {checkpointText(checkpoints)} ·{" "}
      <Time value={checkpoints.at(-1)!.at} />
    </p>
  );
}

/** What "Run again from here" needs: which steps it applies to and what it does, when the one using the console may. */
export interface ForkFromStep {
  pending: number | null;
  onFork: (stepId: number) => void;
}

function StepList({
  steps,
  checkpoints,
  steering,
  fork,
}: {
  steps: RunStep[];
  checkpoints: RunCheckpoint[];
  steering: SteeringOnSteps;
  fork: ForkFromStep | null;
}) {
  const byStep = checkpointsByStep(checkpoints);
  const forkable = fork ? forkableSteps(steps, checkpoints) : new Set<number>();
  return (
    <>
      <CheckpointMark checkpoints={byStep.get(0)} />
      {steps.length === 0 ? (
        <p className="muted small">No steps recorded.</p>
      ) : (
        <ol className="steps" aria-label="Steps">
          {steps.map((s) => (
            <li key={s.id} className="step" data-step-id={s.id}>
              <SteeringMessages
                label="Messages received"
                messages={(steering.before.get(s.id) ?? []).map((message) => ({ message }))}
              />
              <div className="step-line">
                <details>
                  <summary>
                    <span className="subtle mono step-id">#{s.id}</span>{" "}
                    <span className="badge step-kind">{s.kind}</span> <span className="mono">{s.name}</span>{" "}
                    <span className={`badge step-${s.status}`}>{s.status}</span>{" "}
                    <span className="subtle">
                      <Time value={s.startedAt} /> · {duration(between(s.startedAt, s.endedAt ?? undefined))}
                    </span>
                    {s.errorCode ? (
                      <>
                        {" "}
                        <Code>{s.errorCode}</Code> <span className="muted small">{s.errorMessage}</span>
                      </>
                    ) : null}
                  </summary>
                  <pre className="json">{json(s.output)}</pre>
                </details>
                {fork && forkable.has(s.id) ? (
                  <button
                    type="button"
                    className="btn btn-small"
                    title={`A new run of this session that goes on from the checkpoint before ${stepLabel(s.id)} and does it again`}
                    disabled={fork.pending !== null}
                    onClick={() => fork.onFork(s.id)}
                  >
                    {fork.pending === s.id ? "Forking…" : "Run again from here"}
                  </button>
                ) : null}
              </div>
              <CheckpointMark checkpoints={byStep.get(s.id)} />
            </li>
          ))}
        </ol>
      )}
      <SteeringMessages label="Messages not received" messages={steering.after} />
    </>
  );
}

/** The model's text as it comes, until its step is stored with the whole of it. */
function WritingArea({ writing }: { writing: Writing }) {
  return (
    <figure className="writing" aria-label="Model writing">
      <figcaption className="muted small">
        writing… <span className="mono">step {writing.stepId}</span>
      </figcaption>
      <pre className="json">{writingText(writing)}</pre>
    </figure>
  );
}

/**
 * The run's steps panel: its resumes, its steps in order with the checkpoints after them and the
 * messages sent to it before the model step that received them.
 */
export function RunSteps({
  steps,
  checkpoints,
  steering,
  resumes,
  fork,
  writing,
  error,
  onRetry,
}: {
  steps: RunStep[] | undefined;
  checkpoints: RunCheckpoint[] | undefined;
  steering: SteeringOnSteps;
  resumes: ReactNode;
  fork: ForkFromStep | null;
  writing: Writing | null;
  error: unknown;
  onRetry: () => void;
}) {
  return (
    <section className="panel" aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      {resumes}
      {steps ? (
        <StepList steps={steps} checkpoints={checkpoints ?? []} steering={steering} fork={fork} />
      ) : error ? (
        <ErrorState what="steps" error={error} onRetry={onRetry} />
      ) : (
        <p className="muted">Loading steps…</p>
      )}
      {writing ? <WritingArea writing={writing} /> : null}
    </section>
  );
}
