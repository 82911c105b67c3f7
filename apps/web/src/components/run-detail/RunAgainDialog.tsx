import type { Run, RunCheckpoint } from "@oah/contract";
import { requeueFromInput } from "@/lib/durable/requeue-from";
import { ConfirmDialog } from "../ConfirmDialog";
import { Time } from "../Time";
import { RequeueFrom } from "./RequeueFrom";
import type { RunActions } from "./useRunActions";

/** A run someone asked to cancel starts again only once the operator confirms it. */
export function RunAgainDialog({
  run,
  checkpoints,
  actions,
}: {
  run: Run;
  checkpoints: readonly RunCheckpoint[] | undefined;
  actions: RunActions;
}) {
  return (
    <ConfirmDialog
      open={actions.confirmingRunAgain}
      title="Run it again anyway?"
      confirmLabel="Run again"
      dismissLabel="Leave it"
      busy={actions.requeue.isPending}
      onCancel={() => actions.setConfirmingRunAgain(false)}
      onConfirm={() =>
        actions.requeue.mutate({
          runId: run.id,
          includeCancelled: true,
          ...requeueFromInput(actions.requeueFrom),
        })
      }
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
        budget.
      </p>
      <RequeueFrom checkpoints={checkpoints} actions={actions} />
    </ConfirmDialog>
  );
}
