"use client";

import type { DeadLetterGroup } from "@oah/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useMay } from "@/lib/actor";
import { REFRESH_MS } from "@/lib/constants";
import { filtersToInput } from "@/lib/storage-filters/view";
import { deadLetterView, storageHref } from "@/lib/storage-links";
import { useTRPC } from "@/lib/trpc";
import { Code } from "../Badges";
import { BulkActionDialog } from "../bulk/BulkActionDialog";
import { ErrorState } from "../ErrorBanner";
import { RunId } from "../RunId";
import { Time } from "../Time";

function LastExecutions({ group }: { group: DeadLetterGroup }) {
  return (
    <ul className="plain-list small">
      {group.lastExecutions.map((e) => (
        <li key={e.runId}>
          <RunId id={e.runId} short /> <span className="mono muted">{e.workerId ?? "no worker"}</span>{" "}
          <span title={e.errorMessage ?? undefined}>{e.errorMessage ?? ""}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The dead letters: quarantined runs by reason × error code × workspace, each group's runs one
 * click away and requeued together, through a bulk action of the group's filter, once its cause is mended.
 */
export function DeadLettersView() {
  const trpc = useTRPC();
  const mayRequeue = useMay("operate");
  const [requeuing, setRequeuing] = useState<DeadLetterGroup | null>(null);
  const letters = useQuery(trpc.admin.deadLetters.queryOptions({}, { refetchInterval: REFRESH_MS }));
  const groups = letters.data?.groups ?? [];
  const total = groups.reduce((n, g) => n + g.count, 0);
  return (
    <section className="panel" aria-labelledby="dead-letters-title">
      <div className="panel-head">
        <h1 id="dead-letters-title">Dead letters</h1>
        <span className="muted small">
          quarantined runs, by reason, error code and workspace{letters.data ? ` · ${total} in all` : ""}
        </span>
      </div>
      {letters.error ? (
        <ErrorState what="the dead letters" error={letters.error} onRetry={() => letters.refetch()} />
      ) : !letters.data ? (
        <div className="state" role="status">
          Loading the dead letters…
        </div>
      ) : groups.length === 0 ? (
        <div className="state">No quarantined run: recovery has left nothing for an operator.</div>
      ) : (
        <div className="table-wrap">
          <table className="dense-table" aria-label="Dead-letter groups">
            <thead>
              <tr>
                <th>Reason</th>
                <th>Error code</th>
                <th>Workspace</th>
                <th className="num">Runs</th>
                <th>Oldest</th>
                <th>Newest</th>
                <th>Last executions</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => (
                <tr
                  key={`${group.reason} ${group.errorCode} ${group.workspaceId}`}
                  data-reason={group.reason}
                  data-workspace={group.workspaceId}
                >
                  <td>
                    <Code>{group.reason}</Code>
                  </td>
                  <td>
                    <Code>{group.errorCode}</Code>
                  </td>
                  <td className="mono">{group.workspaceId}</td>
                  <td className="num" data-testid="group-count">
                    {group.count}
                  </td>
                  <td className="time">
                    <Time value={group.oldestAt} />
                  </td>
                  <td className="time">
                    <Time value={group.newestAt} />
                  </td>
                  <td>
                    <LastExecutions group={group} />
                  </td>
                  <td className="actions">
                    <Link className="btn btn-small" href={storageHref(deadLetterView(group))}>
                      Runs
                    </Link>
                    {mayRequeue ? (
                      <button
                        type="button"
                        className="btn btn-small btn-primary"
                        onClick={() => setRequeuing(group)}
                      >
                        Requeue this group…
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <BulkActionDialog
        action="requeue"
        filter={requeuing ? filtersToInput(deadLetterView(requeuing)) : {}}
        open={requeuing !== null}
        onClose={() => setRequeuing(null)}
      />
    </section>
  );
}
