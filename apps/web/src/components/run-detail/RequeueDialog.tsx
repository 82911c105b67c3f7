import type { Run, RunCheckpoint } from "@oah/contract";
import { requeueFromInput } from "@/lib/durable/requeue-from";
import { ConfirmDialog } from "../ConfirmDialog";
import { RequeueFrom } from "./RequeueFrom";
import type { RunActions } from "./useRunActions";

/** A requeue of the run, from its last checkpoint or over from its first step, as the operator chooses. */
export function RequeueDialog({
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
      open={actions.confirmingRequeue}
      title="Requeue this run?"
      confirmLabel="Requeue"
      busy={actions.requeue.isPending}
      onCancel={() => actions.setConfirmingRequeue(false)}
      onConfirm={() => actions.requeue.mutate({ runId: run.id, ...requeueFromInput(actions.requeueFrom) })}
    >
      <p>
        <span className="mono">{run.id}</span> is {run.status}. It goes to the tail of its session's queue
        with a fresh recovery budget.
      </p>
      <RequeueFrom checkpoints={checkpoints} actions={actions} />
    </ConfirmDialog>
  );
}
