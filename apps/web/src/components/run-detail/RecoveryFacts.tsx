import type { Run } from "@oah/contract";
import { lastOutcomeText, recoveryActed, recoveryAttemptsText } from "@/lib/run-detail/recovery";
import { AskedBy } from "../AskedBy";
import { RecoveryBadge } from "../Badges";
import { Time } from "../Time";

/** What recovery (and operators) did with the run. */
export function RecoveryFacts({ run }: { run: Run }) {
  if (!recoveryActed(run)) return <p className="muted small">Recovery has never acted on this run.</p>;
  const r = run.metadata?.recovery;
  return (
    <dl className="facts facts-grid facts-wide">
      <div>
        <dt>state</dt>
        <dd>
          <RecoveryBadge state={run.recoveryState} />
        </dd>
      </div>
      <div>
        <dt>strategy</dt>
        <dd className="mono">{r?.strategy ?? "—"}</dd>
      </div>
      <div>
        <dt>attempts / max</dt>
        <dd>{recoveryAttemptsText(run)}</dd>
      </div>
      <div>
        <dt>reason</dt>
        <dd className="mono">{r?.reason ?? "—"}</dd>
      </div>
      <div>
        <dt>last outcome</dt>
        <dd className="mono">{lastOutcomeText(run)}</dd>
      </div>
      <div>
        <dt>last recovered</dt>
        <dd>
          <Time value={r?.lastRecoveredAt} />
          {r?.lastRecoveredBy ? <span className="subtle mono"> by {r.lastRecoveredBy}</span> : null}
        </dd>
      </div>
      <div>
        <dt>manual requeues</dt>
        <dd>
          {r?.manualRequeueCount ?? 0}
          {r?.lastManualRequeueAt ? (
            <span className="subtle">
              {" "}
              · last <Time value={r.lastManualRequeueAt} /> by{" "}
              <AskedBy by={r.lastManualRequeueBy} claimed={r.lastManualRequeueClaimedBy} />
            </span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>dead letter</dt>
        <dd>
          {r?.deadLetter ? (
            <>
              <span className="badge recovery-quarantined">{r.deadLetter.status}</span>{" "}
              <span className="mono">{r.deadLetter.reason}</span> · <Time value={r.deadLetter.at} />
            </>
          ) : (
            <span className="muted">none</span>
          )}
        </dd>
      </div>
    </dl>
  );
}
