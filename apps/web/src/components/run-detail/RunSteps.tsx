import type { RunStep } from "@oah/contract";
import { between, duration, json } from "@/lib/format";
import { type Writing, writingText } from "@/lib/live/run-stream";
import { Code } from "../Badges";
import { ErrorState } from "../ErrorBanner";
import { Time } from "../Time";

function StepList({ steps }: { steps: RunStep[] }) {
  if (steps.length === 0) return <p className="muted small">No steps recorded.</p>;
  return (
    <ol className="steps" aria-label="Steps">
      {steps.map((s) => (
        <li key={s.id} className="step">
          <details>
            <summary>
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
        </li>
      ))}
    </ol>
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

/** The run's steps panel. */
export function RunSteps({
  steps,
  writing,
  error,
  onRetry,
}: {
  steps: RunStep[] | undefined;
  writing: Writing | null;
  error: unknown;
  onRetry: () => void;
}) {
  return (
    <section className="panel" aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      {steps ? (
        <StepList steps={steps} />
      ) : error ? (
        <ErrorState what="steps" error={error} onRetry={onRetry} />
      ) : (
        <p className="muted">Loading steps…</p>
      )}
      {writing ? <WritingArea writing={writing} /> : null}
    </section>
  );
}
