"use client";

import type { AuditEntry } from "@oah/contract";
import { AUDIT_ACTIONS, type AuditAction } from "@oah/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { auditQuery, FIRST_PAGE, filtered, nextPage, previousPage } from "@/lib/audit/paging";
import { REFRESH_MS } from "@/lib/constants";
import { useTRPC } from "@/lib/trpc";
import { Code } from "../Badges";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";
import { JsonBlock } from "../JsonBlock";
import { Pager } from "../runs/Pager";
import { Time } from "../Time";

function Outcome({ outcome }: { outcome: AuditEntry["outcome"] }) {
  if (outcome.ok) return <span className="badge status-completed">done</span>;
  return (
    <span title={outcome.message}>
      <span className="badge status-failed">refused</span> <Code>{outcome.errorCode}</Code>
    </span>
  );
}

/** The audit log: who did what, when, to what, and how it ended; newest first. */
export function AuditView() {
  const trpc = useTRPC();
  const [view, setView] = useState(FIRST_PAGE);
  const query = auditQuery(view);
  const log = useQuery(
    trpc.admin.audit.queryOptions(query as never, {
      refetchInterval: REFRESH_MS,
      placeholderData: keepPreviousData,
    }),
  );
  const items = log.data?.items ?? [];
  return (
    <section className="panel" aria-labelledby="audit-title">
      <div className="panel-head">
        <h1 id="audit-title">Audit log</h1>
        <span className="muted small">operator actions, newest first</span>
      </div>
      <form className="filter-bar" onSubmit={(event) => event.preventDefault()}>
        <label>
          Actor{" "}
          <input
            className="mono"
            value={view.actor}
            placeholder="token name"
            onChange={(event) => setView(filtered(view, { actor: event.target.value }))}
          />
        </label>
        <label>
          Action{" "}
          <select
            value={view.action}
            onChange={(event) => setView(filtered(view, { action: event.target.value }))}
          >
            <option value="">any</option>
            {AUDIT_ACTIONS.map((action: AuditAction) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
      </form>
      {log.data && log.error ? (
        <RefreshErrorBanner errors={[log.error]} updatedAt={log.dataUpdatedAt || null} />
      ) : null}
      {!log.data && log.error ? (
        <ErrorState what="the audit log" error={log.error} onRetry={() => log.refetch()} />
      ) : !log.data ? (
        <div className="state" role="status">
          Loading the audit log…
        </div>
      ) : items.length === 0 ? (
        <div className="state">
          No operator action recorded{view.actor || view.action ? " for these filters" : ""}.
        </div>
      ) : (
        <div className="table-wrap">
          <table className="dense-table" aria-label="Audit log">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Role</th>
                <th>Action</th>
                <th>Target</th>
                <th>Outcome</th>
                <th>Parameters</th>
              </tr>
            </thead>
            <tbody>
              {items.map((entry) => (
                <tr key={entry.id} data-audit-action={entry.action} data-actor={entry.actor}>
                  <td className="time">
                    <Time value={entry.at} />
                  </td>
                  <td className="mono">{entry.actor}</td>
                  <td>{entry.role}</td>
                  <td className="mono">{entry.action}</td>
                  <td className="mono ellipsis" title={entry.target ?? undefined}>
                    {entry.target ?? <span className="muted">—</span>}
                  </td>
                  <td>
                    <Outcome outcome={entry.outcome} />
                  </td>
                  <td>
                    <JsonBlock value={entry.params} label="Parameters" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        page={view.cursors.length}
        canGoBack={view.cursors.length > 1}
        canGoOn={Boolean(log.data?.nextCursor)}
        onPrevious={() => setView(previousPage(view))}
        onNext={() => log.data?.nextCursor && setView(nextPage(view, log.data.nextCursor))}
        previousLabel="← Newer"
        nextLabel="Older →"
      />
    </section>
  );
}
