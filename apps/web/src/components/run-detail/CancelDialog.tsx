import type { Run } from "@oah/contract";
import { ConfirmDialog } from "../ConfirmDialog";
import type { RunActions } from "./useRunActions";

export function CancelDialog({ run, actions }: { run: Run; actions: RunActions }) {
  return (
    <ConfirmDialog
      open={actions.confirmingCancel}
      title="Cancel this run?"
      confirmLabel="Cancel run"
      dismissLabel="Keep it running"
      danger
      busy={actions.cancel.isPending}
      onCancel={() => actions.setConfirmingCancel(false)}
      onConfirm={() => actions.cancel.mutate({ runId: run.id })}
    >
      <p>
        <span className="mono">{run.id}</span> is {run.status}. A queued run is cancelled at once; a running
        one is aborted where it runs (its shell steps get SIGTERM, then SIGKILL) and ends{" "}
        <code>cancelled</code>.
      </p>
    </ConfirmDialog>
  );
}
