"use client";

import type { BulkJob, BulkJobItem } from "@oah/contract";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useMay } from "@/lib/actor";
import { ACTION_VERB, percentDone } from "@/lib/bulk/report";
import { REFRESH_MS } from "@/lib/constants";
import { EMPTY_FILTERS } from "@/lib/storage-filters/view";
import { storageHref } from "@/lib/storage-links";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { AskedBy } from "../AskedBy";
import { ConfirmDialog } from "../ConfirmDialog";
import { ErrorState } from "../ErrorBanner";
import { JsonBlock } from "../JsonBlock";
import { RunId } from "../RunId";
import { Pager } from "../runs/Pager";
import { Time } from "../Time";
import { BulkStatus } from "./BulkStatus";
import { OutcomeTable } from "./OutcomeTable";

/** While a job runs its progress is read every second; an ended job changes no more. */
const PROGRESS_MS = 1_000;

function Progress({ job }: { job: BulkJob }) {
  const percent = percentDone(job);
  return (
    <div className="bulk-progress">
      <progress
        max={job.total}
        value={job.done}
        aria-label={`${ACTION_VERB[job.action].gerund} progress`}
        data-testid="bulk-progress"
      />
      <span className="mono" data-testid="bulk-done">
        {job.done} / {job.total} ({percent}%)
      </span>
    </div>
  );
}

function Items({ jobId }: { jobId: string }) {
  const trpc = useTRPC();
  const [outcome, setOutcome] = useState("");
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const items = useQuery(
    trpc.admin.bulkActionItems.queryOptions(
      { id: jobId, limit: 50, ...(outcome ? { outcome } : {}), ...(cursor ? { cursor } : {}) },
      { refetchInterval: REFRESH_MS, placeholderData: keepPreviousData },
    ),
  );
  const rows: BulkJobItem[] = items.data?.items ?? [];
  return (
    <section className="panel" aria-labelledby="items-title">
      <div className="panel-head">
        <h2 id="items-title">Runs of the job</h2>
        <label className="small">
          Outcome{" "}
          <input
            className="mono"
            value={outcome}
            placeholder="any"
            onChange={(event) => {
              setOutcome(event.target.value.trim());
              setCursors([]);
            }}
          />
        </label>
      </div>
      {items.error ? (
        <ErrorState what="the job's runs" error={items.error} onRetry={() => items.refetch()} />
      ) : (
        <table className="dense-table" aria-label="Runs of the job">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Run</th>
              <th>Outcome</th>
              <th>Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((item) => (
              <tr key={item.position} data-run-id={item.runId} data-outcome={item.outcome ?? "pending"}>
                <td className="num">{item.position}</td>
                <td>
                  <RunId id={item.runId} />
                </td>
                <td>
                  {item.outcome ? (
                    <code className="code">{item.outcome}</code>
                  ) : (
                    <span className="muted">not yet</span>
                  )}
                </td>
                <td className="small">{item.message ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        page={cursors.length + 1}
        canGoBack={cursors.length > 0}
        canGoOn={Boolean(items.data?.nextCursor)}
        onPrevious={() => setCursors((c) => c.slice(0, -1))}
        onNext={() => {
          const next = items.data?.nextCursor;
          if (next) setCursors((c) => [...c, next]);
        }}
      />
    </section>
  );
}

/** One bulk job: its progress while it runs, abort, its outcomes, and what it did to each run. */
export function BulkJobView({ jobId }: { jobId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayOperate = useMay("operate");
  const [confirming, setConfirming] = useState(false);
  const job = useQuery(
    trpc.admin.bulkActionGet.queryOptions(
      { id: jobId },
      { refetchInterval: (query) => (query.state.data?.status === "running" ? PROGRESS_MS : false) },
    ),
  );
  const abort = useMutation(
    trpc.admin.bulkActionAbort.mutationOptions({
      onSettled: () => {
        setConfirming(false);
        return queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
    }),
  );
  if (job.error) return <ErrorState what="the bulk action" error={job.error} onRetry={() => job.refetch()} />;
  if (!job.data)
    return (
      <div className="state" role="status">
        Loading the bulk action…
      </div>
    );
  const data = job.data;
  return (
    <div className="bulk-job">
      <section className="panel" aria-labelledby="job-title">
        <div className="panel-head">
          <h1 id="job-title">
            {ACTION_VERB[data.action].verb} by filter <span className="mono small">{data.id}</span>
          </h1>
          <BulkStatus status={data.status} />
          <div className="spacer" />
          {mayOperate && data.status === "running" ? (
            <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)}>
              Abort
            </button>
          ) : null}
        </div>
        <Progress job={data} />
        <dl className="facts">
          <dt>Asked by</dt>
          <dd>
            <AskedBy by={data.requestedBy} claimed={data.claimedBy} />
          </dd>
          <dt>Started</dt>
          <dd>
            <Time value={data.startedAt} />
          </dd>
          <dt>Ended</dt>
          <dd>{data.endedAt ? <Time value={data.endedAt} /> : <span className="muted">not yet</span>}</dd>
          <dt>Filter</dt>
          <dd>
            <JsonBlock value={data.filter} label="Filter" />{" "}
            <Link href={storageHref({ ...EMPTY_FILTERS, ...(data.filter as object) })}>its runs now</Link>
          </dd>
          {data.error ? (
            <>
              <dt>Error</dt>
              <dd className="notice-error">{data.error}</dd>
            </>
          ) : null}
        </dl>
        {abort.error ? (
          <p className="notice-error" role="alert">
            {errorFacts(abort.error).message}
          </p>
        ) : null}
        <OutcomeTable action={data.action} outcomes={data.outcomes} />
      </section>
      <Items jobId={jobId} />
      <ConfirmDialog
        open={confirming}
        title="Abort this bulk action?"
        confirmLabel="Abort"
        danger
        busy={abort.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => abort.mutate({ id: jobId })}
      >
        <p>
          The job stops after the chunk in hand; what it has done stays done, the rest of its runs are left as
          they are.
        </p>
      </ConfirmDialog>
    </div>
  );
}
