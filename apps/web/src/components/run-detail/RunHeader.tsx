import type { Run } from "@oah/contract";
import { useMay } from "@/lib/actor";
import type { LiveState } from "@/lib/live/state";
import { isCancellable, requeueKind } from "@/lib/runs";
import { ParkedBadge, RecoveryBadge, StatusBadge } from "../Badges";
import { LiveBadge } from "../live/LiveBadge";
import type { RunActions } from "./useRunActions";

/** The run's id and state, and the actions it allows. */
export function RunHeader({ run, actions, live }: { run: Run; actions: RunActions; live: LiveState }) {
  const { cancel, requeue } = actions;
  const mayCancel = useMay("cancel");
  // Requeue, or run again: an operator's.
  const again = useMay("operate") ? requeueKind(run) : null;
  return (
    <header className="run-head">
      <h1 className="mono">{run.id}</h1>
      <span data-testid="run-status">
        <StatusBadge status={run.status} />
      </span>
      <ParkedBadge parked={run.metadata.parked} />
      {run.recoveryState ? <RecoveryBadge state={run.recoveryState} /> : null}
      <LiveBadge state={live} />
      <div className="spacer" />
      {mayCancel && isCancellable(run) ? (
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => actions.setConfirmingCancel(true)}
          disabled={cancel.isPending}
        >
          Cancel
        </button>
      ) : null}
      {again === "requeue" ? (
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => actions.setConfirmingRequeue(true)}
          disabled={requeue.isPending}
        >
          Requeue…
        </button>
      ) : null}
      {again === "explicit" ? (
        <button
          type="button"
          className="btn"
          onClick={() => actions.setConfirmingRunAgain(true)}
          disabled={requeue.isPending}
        >
          Run again…
        </button>
      ) : null}
    </header>
  );
}
