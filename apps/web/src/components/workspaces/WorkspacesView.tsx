"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { REFRESH_MS } from "@/lib/constants";
import { useTRPC } from "@/lib/trpc";
import { usageWindow, workspaceUsageRows } from "@/lib/workspaces/usage";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";
import { HourBars } from "./HourBars";

const count = (n: number) => n.toLocaleString("en-US");

/** Each workspace's work now and what its model calls spent over the last 24 hours, most tokens first. */
export function WorkspacesView() {
  const trpc = useTRPC();
  const now = Date.now();
  const pool = useQuery(trpc.admin.pool.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  const usage = useQuery(
    trpc.admin.modelUsage.queryOptions(usageWindow(now), {
      refetchInterval: REFRESH_MS,
      placeholderData: keepPreviousData,
    }),
  );
  const errors = [pool.error, usage.error].filter((e) => e !== null);
  const ready = pool.data && usage.data;
  const rows = ready ? workspaceUsageRows(pool.data.workspaces, usage.data.items, now) : [];
  return (
    <section className="panel" aria-labelledby="workspaces-title">
      <div className="panel-head">
        <h1 id="workspaces-title">Workspaces</h1>
        <span className="muted small">
          work now, and model calls over the last 24 hours; most tokens first
        </span>
      </div>
      {ready && errors.length > 0 ? (
        <RefreshErrorBanner
          errors={errors}
          updatedAt={Math.min(pool.dataUpdatedAt, usage.dataUpdatedAt) || null}
        />
      ) : null}
      {!ready && errors.length > 0 ? (
        <ErrorState
          what="the workspaces"
          error={errors[0]}
          onRetry={() => {
            pool.refetch();
            usage.refetch();
          }}
        />
      ) : !ready ? (
        <div className="state" role="status">
          Loading the workspaces…
        </div>
      ) : rows.length === 0 ? (
        <div className="state">No workspace has work now or made a model call in the last 24 hours.</div>
      ) : (
        <div className="table-wrap">
          <table className="dense-table" aria-label="Workspaces">
            <thead>
              <tr>
                <th>Workspace</th>
                <th className="num" title="Runs holding a slot: running, or waiting for a tool on hold">
                  Executing
                </th>
                <th className="num" title="Sessions with a run waiting for a slot">
                  Ready sessions
                </th>
                <th className="num" title="Runs waiting for a tool result without a slot">
                  Parked
                </th>
                <th className="num">Model calls</th>
                <th className="num" title="Prompt + completion">
                  Tokens
                </th>
                <th>By hour</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.workspaceId} data-workspace-id={w.workspaceId}>
                  <td className="mono">{w.workspaceId}</td>
                  <td className="num" data-testid="executing">
                    {w.executingRuns}
                  </td>
                  <td className="num" data-testid="ready">
                    {w.readySessions}
                  </td>
                  <td className="num" data-testid="parked">
                    {w.parkedRuns}
                  </td>
                  <td className="num" data-testid="calls">
                    {count(w.calls)}
                  </td>
                  <td
                    className="num"
                    data-testid="tokens"
                    title={`${count(w.promptTokens)} prompt + ${count(w.completionTokens)} completion`}
                  >
                    {count(w.tokens)}
                  </td>
                  <td>
                    <HourBars hours={w.hours} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
