import type { RequeueItem } from "@oah/contract";
import { RunId } from "../RunId";

/** The per-item outcome of a bulk requeue, as the API answered it. */
export function RequeueResults({ items, onDismiss }: { items: RequeueItem[]; onDismiss: () => void }) {
  const ok = items.filter((i) => i.status === "queued").length;
  const refused = items.length - ok;
  return (
    <section className="results" aria-labelledby="requeue-results-title">
      <div className="results-head">
        <h3 id="requeue-results-title">Requeue results</h3>
        <span className="muted">
          {ok} requeued, {refused} refused
        </span>
        <button type="button" className="btn btn-small" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      <ul className="results-list">
        {items.map((item) => (
          <li
            key={item.runId}
            data-run-id={item.runId}
            data-outcome={item.status === "queued" ? "requeued" : item.errorCode}
          >
            <RunId id={item.runId} />
            {item.status === "queued" ? (
              <span className="outcome outcome-ok">
                <span className="badge recovery-requeued">requeued</span>
                <span className="muted">was {item.previousStatus}</span>
              </span>
            ) : (
              <span className="outcome outcome-error">
                <code className="code code-error">{item.errorCode}</code>
                <span>{item.errorMessage}</span>
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
