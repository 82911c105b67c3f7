import { RESUME_EACH, requeueFromInput } from "@/lib/durable/requeue-from";
import {
  eligibilityText,
  REQUEUE_BATCH_MAX,
  requeueBatch,
  requeuePreview,
  requeueTitle,
} from "@/lib/runs-panel/requeue";
import { StatusBadge } from "../Badges";
import { ConfirmDialog } from "../ConfirmDialog";
import { RequeueFromChoice } from "../RequeueFromChoice";
import type { Requeues } from "./useRequeues";
import type { RunSelection } from "./useSelection";

/**
 * The confirmation of a bulk requeue: how many, which, what the console expects the API to
 * refuse, and where the runs start (each from its last checkpoint, or over).
 */
export function RequeueDialog({ selection, requeues }: { selection: RunSelection; requeues: Requeues }) {
  const runs = [...selection.selected.values()];
  const { listed, more } = requeuePreview(runs);
  return (
    <ConfirmDialog
      open={requeues.confirming}
      title={requeueTitle(runs.length)}
      confirmLabel={`Requeue ${runs.length}`}
      busy={requeues.requeueMany.isPending}
      onCancel={() => requeues.setConfirming(false)}
      onConfirm={() =>
        requeues.requeueMany.mutate({ runIds: requeueBatch(runs), ...requeueFromInput(requeues.requeueFrom) })
      }
    >
      <p>
        Each run goes to the tail of its session's queue with a fresh recovery budget. {eligibilityText(runs)}
      </p>
      <RequeueFromChoice
        resumeLabel={RESUME_EACH}
        value={requeues.requeueFrom}
        onChange={requeues.setRequeueFrom}
        disabled={requeues.requeueMany.isPending}
      />
      {runs.length > REQUEUE_BATCH_MAX ? (
        <p className="notice-error">Only the first {REQUEUE_BATCH_MAX} are sent (the API's limit).</p>
      ) : null}
      <ul className="dialog-list">
        {listed.map((run) => (
          <li key={run.id}>
            <span className="mono">{run.id}</span> <StatusBadge status={run.status} />
          </li>
        ))}
        {more > 0 ? <li className="muted">and {more} more</li> : null}
      </ul>
    </ConfirmDialog>
  );
}
