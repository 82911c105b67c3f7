"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ACTION_VERB, percentDone } from "@/lib/bulk/report";
import { REFRESH_MS } from "@/lib/constants";
import { useTRPC } from "@/lib/trpc";
import { AskedBy } from "../AskedBy";
import { ErrorState } from "../ErrorBanner";
import { JsonBlock } from "../JsonBlock";
import { Time } from "../Time";
import { BulkStatus } from "./BulkStatus";

/** The history of bulk actions, newest first. */
export function BulkJobsView() {
  const trpc = useTRPC();
  const jobs = useQuery(trpc.admin.bulkActions.queryOptions({ limit: 100 }, { refetchInterval: REFRESH_MS }));
  const items = jobs.data?.items ?? [];
  return (
    <section className="panel" aria-labelledby="bulk-title">
      <div className="panel-head">
        <h1 id="bulk-title">Bulk actions</h1>
        <span className="muted small">requeues and cancels by filter, newest first</span>
      </div>
      {jobs.error ? (
        <ErrorState what="the bulk actions" error={jobs.error} onRetry={() => jobs.refetch()} />
      ) : !jobs.data ? (
        <div className="state" role="status">
          Loading the bulk actions…
        </div>
      ) : items.length === 0 ? (
        <div className="state">
          No bulk action yet. On the Storage page, filter the runs, then “Requeue all matching” or “Cancel all
          matching”.
        </div>
      ) : (
        <div className="table-wrap">
          <table className="dense-table" aria-label="Bulk actions">
            <thead>
              <tr>
                <th>Started</th>
                <th>Action</th>
                <th>Status</th>
                <th className="num">Done</th>
                <th>Asked by</th>
                <th>Filter</th>
              </tr>
            </thead>
            <tbody>
              {items.map((job) => (
                <tr key={job.id} data-job-id={job.id}>
                  <td className="time">
                    <Link href={`/bulk-actions/${job.id}`}>
                      <Time value={job.startedAt} />
                    </Link>
                  </td>
                  <td>{ACTION_VERB[job.action].verb}</td>
                  <td>
                    <BulkStatus status={job.status} />
                  </td>
                  <td className="num">
                    {job.done} / {job.total} ({percentDone(job)}%)
                  </td>
                  <td>
                    <AskedBy by={job.requestedBy} claimed={job.claimedBy} />
                  </td>
                  <td>
                    <JsonBlock value={job.filter} label="Filter" />
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
