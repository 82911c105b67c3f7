import type { RunSummary } from "@oah/contract";
import Link from "next/link";
import { useMay } from "@/lib/actor";
import { isRequeueEligible } from "@/lib/runs";
import { attemptsTitle, quarantineReason } from "@/lib/runs-panel/row";
import { inspectorHref } from "@/lib/sessions/links";
import type { RunFilters } from "@/lib/storage-filters/view";
import { sessionHref } from "@/lib/storage-links";
import { Code, ParkedBadge, RecoveryBadge, StatusBadge } from "../Badges";
import { RunId } from "../RunId";
import { Time } from "../Time";
import type { Requeues } from "./useRequeues";
import type { RunSelection } from "./useSelection";

function RecoveryCell({ run }: { run: RunSummary }) {
  const reason = quarantineReason(run);
  return (
    <>
      <RecoveryBadge state={run.recoveryState} title={run.metadata?.recovery?.reason} />
      {reason ? <span className="subtle mono">{reason}</span> : null}
    </>
  );
}

/** One run of the table, with its selection box and, when it is eligible, its Requeue button. */
export function RunRow({
  run,
  filters,
  selection,
  requeues,
}: {
  run: RunSummary;
  filters: RunFilters;
  selection: RunSelection;
  requeues: Requeues;
}) {
  const selected = selection.selected.has(run.id);
  const pending = requeues.pendingRow === run.id;
  const mayRequeue = useMay("operate");
  return (
    <tr data-run-id={run.id} className={selected ? "is-selected" : undefined}>
      <td className="col-check">
        <input
          type="checkbox"
          aria-label={`Select run ${run.id}`}
          checked={selected}
          onChange={(event) => selection.set([run], event.target.checked)}
        />
      </td>
      <td>
        <RunId id={run.id} />
      </td>
      <td className="mono ellipsis" title={run.sessionId}>
        <Link href={sessionHref(run.sessionId, filters)} className="plain-link">
          {run.sessionId}
        </Link>
        <span className="subtle">#{run.seq}</span>{" "}
        <Link
          href={inspectorHref(run.sessionId)}
          className="plain-link subtle"
          aria-label={`Inspect session ${run.sessionId}`}
          title="Inspect the session"
        >
          ⌕
        </Link>
      </td>
      <td>
        <StatusBadge status={run.status} /> <ParkedBadge parked={run.metadata?.parked} />
      </td>
      <td title={run.errorMessage ?? undefined}>
        <Code>{run.errorCode}</Code>
      </td>
      <td>
        <RecoveryCell run={run} />
      </td>
      <td className="num" title={attemptsTitle(run)}>
        {run.attempt}
        {typeof run.metadata?.recoveryAttempts === "number" ? (
          <span className="subtle"> ·r{run.metadata.recoveryAttempts}</span>
        ) : null}
      </td>
      <td className="time">
        <Time value={run.createdAt} />
      </td>
      <td className="time">
        <Time value={run.startedAt} />
      </td>
      <td className="time">
        <Time value={run.endedAt} />
      </td>
      <td className="mono ellipsis worker" title={run.workerId ?? undefined}>
        {run.workerId ?? <span className="muted">—</span>}
      </td>
      <td className="col-action">
        {mayRequeue && isRequeueEligible(run) ? (
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Requeue ${run.id}`}
            disabled={pending}
            onClick={() => requeues.requeueOne(run.id)}
          >
            {pending ? "Requeuing…" : "Requeue"}
          </button>
        ) : null}
      </td>
    </tr>
  );
}
