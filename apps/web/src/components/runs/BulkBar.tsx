import type { StorageRunFilters } from "@oah/contract";
import { noticeClass } from "@/lib/notice";
import { selectionText } from "@/lib/runs-panel/selection";
import { MatchingActions } from "../bulk/MatchingActions";
import type { Requeues } from "./useRequeues";
import type { RunSelection } from "./useSelection";

/** The selection's size and actions, the actions on every run of the filter, and what the last requeue told. */
export function BulkBar({
  selection,
  requeues,
  filter,
}: {
  selection: RunSelection;
  requeues: Requeues;
  filter: StorageRunFilters;
}) {
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
      <MatchingActions filter={filter} />
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
