import { noticeClass } from "@/lib/notice";
import { selectionText } from "@/lib/runs-panel/selection";
import type { Requeues } from "./useRequeues";
import type { RunSelection } from "./useSelection";

/** The selection's size and actions, and what the last requeue told. */
export function BulkBar({ selection, requeues }: { selection: RunSelection; requeues: Requeues }) {
  const size = selection.selected.size;
  const { notice } = requeues;
  return (
    <div className="bulk-bar">
      <span className="muted">{selectionText(size)}</span>
      <button
        type="button"
        className="btn btn-primary"
        disabled={size === 0 || requeues.requeueMany.isPending}
        onClick={() => requeues.setConfirming(true)}
      >
        Requeue selected
      </button>
      <button type="button" className="btn" disabled={size === 0} onClick={selection.clear}>
        Clear selection
      </button>
      {notice ? (
        <span className={noticeClass(notice)} role="status">
          {notice.text}
        </span>
      ) : (
        <span role="status" />
      )}
    </div>
  );
}
