import type { Run } from "@oah/contract";
import { ConfirmDialog } from "../ConfirmDialog";
import { Time } from "../Time";
import type { RunActions } from "./useRunActions";

/** A run someone asked to cancel starts again only once the operator confirms it. */
export function RunAgainDialog({ run, actions }: { run: Run; actions: RunActions }) {
  return (
    <ConfirmDialog
      open={actions.confirmingRunAgain}
      title="Run it again anyway?"
      confirmLabel="Run again"
      dismissLabel="Leave it"
      busy={actions.requeue.isPending}
      onCancel={() => actions.setConfirmingRunAgain(false)}
      onConfirm={() => actions.requeue.mutate({ runId: run.id, includeCancelled: true })}
    >
      <p>
        Someone asked to cancel <span className="mono">{run.id}</span>
        {run.cancelRequestedAt ? (
          <>
            {" "}
            (<Time value={run.cancelRequestedAt} />)
          </>
        ) : null}
        ; it is {run.status}. Running it again goes to the end of its session's queue with a fresh recovery
        budget, and executes its steps again.
      </p>
    </ConfirmDialog>
  );
}
