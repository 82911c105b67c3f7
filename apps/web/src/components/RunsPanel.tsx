"use client";

import type { RequeueItem, RunSummary } from "@oah/contract";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { REFRESH_MS } from "@/lib/constants";
import { isRequeueEligible } from "@/lib/runs";
import {
  filtersToInput,
  filtersToQuery,
  hasFilters,
  PAGE_SIZES,
  type RunFilters,
} from "@/lib/storage-filters/view";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { Code, RecoveryBadge, StatusBadge } from "./Badges";
import { ConfirmDialog } from "./ConfirmDialog";
import { ErrorState, RefreshErrorBanner } from "./ErrorBanner";
import { RequeueResults } from "./RequeueResults";
import { RunId } from "./RunId";
import { Time } from "./Time";

const COLUMNS = [
  "id",
  "session",
  "status",
  "error code",
  "recovery state",
  "attempts",
  "created",
  "started",
  "ended",
  "worker",
];

type Notice = { kind: "ok" | "error"; text: string } | null;

function SelectAll({
  rows,
  selected,
  onChange,
}: {
  rows: RunSummary[];
  selected: Map<string, RunSummary>;
  onChange: (all: boolean) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  const count = rows.filter((r) => selected.has(r.id)).length;
  const all = rows.length > 0 && count === rows.length;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = count > 0 && !all;
  }, [count, all]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select all on page"
      checked={all}
      disabled={rows.length === 0}
      onChange={(event) => onChange(event.target.checked)}
    />
  );
}

function RecoveryCell({ run }: { run: RunSummary }) {
  const recovery = run.metadata?.recovery;
  return (
    <>
      <RecoveryBadge state={run.recoveryState} title={recovery?.reason} />
      {run.recoveryState === "quarantined" && recovery?.reason ? (
        <span className="subtle mono">{recovery.reason}</span>
      ) : null}
    </>
  );
}

export function RunsPanel({
  filters,
  onFilters,
  onClear,
}: {
  filters: RunFilters;
  onFilters: (f: Partial<RunFilters>) => void;
  onClear: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [selected, setSelected] = useState<Map<string, RunSummary>>(new Map());
  const [notice, setNotice] = useState<Notice>(null);
  const [results, setResults] = useState<RequeueItem[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [pendingRow, setPendingRow] = useState<string | null>(null);

  const cursor = cursors[cursors.length - 1];
  const input = { ...filtersToInput(filters), limit: filters.limit, ...(cursor ? { cursor } : {}) };
  const runs = useQuery(
    trpc.admin.runs.queryOptions(input, { refetchInterval: REFRESH_MS, placeholderData: keepPreviousData }),
  );

  // A cursor the API no longer accepts (e.g. made for other filters): back to the first page.
  const cursorRefused = runs.error && errorFacts(runs.error).errorCode === "invalid_cursor";
  useEffect(() => {
    if (cursorRefused) setCursors([undefined]);
  }, [cursorRefused]);

  const invalidate = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() }),
    ]);

  const requeueOne = useMutation(
    trpc.admin.requeue.mutationOptions({
      onMutate: ({ runId }) => setPendingRow(runId),
      onSuccess: (result) => {
        setNotice({ kind: "ok", text: `Requeued ${result.runId} (was ${result.previousStatus}).` });
        setSelected((s) => {
          const next = new Map(s);
          next.delete(result.runId);
          return next;
        });
      },
      onError: (error, { runId }) => {
        const facts = errorFacts(error);
        setNotice({
          kind: "error",
          text: `${runId} was not requeued: ${facts.errorCode ?? "error"} — ${facts.message}`,
        });
      },
      onSettled: () => {
        setPendingRow(null);
        return invalidate();
      },
    }),
  );

  const requeueMany = useMutation(
    trpc.admin.requeueMany.mutationOptions({
      onSuccess: ({ items }) => {
        setResults(items);
        setSelected(new Map());
        setNotice(null);
      },
      onError: (error) => {
        const facts = errorFacts(error);
        setNotice({
          kind: "error",
          text: `Bulk requeue failed: ${facts.errorCode ?? "error"} — ${facts.message}`,
        });
      },
      onSettled: () => {
        setConfirming(false);
        return invalidate();
      },
    }),
  );

  // The wire type tRPC infers loses RunMetadata's named members (it has an index signature); the
  // JSON is the API's RunSummary exactly.
  const rows = (runs.data?.items ?? []) as unknown as RunSummary[];
  const page = cursors.length;
  const firstRow = (page - 1) * filters.limit + 1;
  const selectedRuns = useMemo(() => [...selected.values()], [selected]);
  const eligibleSelected = selectedRuns.filter(isRequeueEligible).length;
  const exportQuery = filtersToQuery({ ...filters, limit: 50 });

  const toggle = (run: RunSummary, on: boolean) =>
    setSelected((s) => {
      const next = new Map(s);
      if (on) next.set(run.id, run);
      else next.delete(run.id);
      return next;
    });

  return (
    <section className="panel runs-panel" aria-labelledby="runs-title">
      <div className="panel-head">
        <h2 id="runs-title">Runs</h2>
        <span className="muted small" aria-live="polite">
          {runs.data
            ? rows.length === 0
              ? `page ${page}`
              : `page ${page} · rows ${firstRow}–${firstRow + rows.length - 1}`
            : ""}
          {runs.isFetching ? " · refreshing…" : ""}
        </span>
        <div className="spacer" />
        <label className="inline-field">
          <span>Rows per page</span>
          <select
            value={filters.limit}
            onChange={(event) => onFilters({ limit: Number(event.target.value) })}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
        <a className="btn" href={`/api/storage/runs.csv${exportQuery}`} download>
          Export CSV
        </a>
      </div>

      <div className="bulk-bar">
        <span className="muted">{selected.size === 0 ? "No run selected" : `${selected.size} selected`}</span>
        <button
          type="button"
          className="btn btn-primary"
          disabled={selected.size === 0 || requeueMany.isPending}
          onClick={() => setConfirming(true)}
        >
          Requeue selected
        </button>
        <button
          type="button"
          className="btn"
          disabled={selected.size === 0}
          onClick={() => setSelected(new Map())}
        >
          Clear selection
        </button>
        {notice ? (
          <span className={notice.kind === "ok" ? "notice notice-ok" : "notice notice-error"} role="status">
            {notice.text}
          </span>
        ) : (
          <span role="status" />
        )}
      </div>

      {results ? <RequeueResults items={results} onDismiss={() => setResults(null)} /> : null}

      {runs.data && runs.error && !cursorRefused ? (
        <RefreshErrorBanner errors={[runs.error]} updatedAt={runs.dataUpdatedAt || null} />
      ) : null}

      {!runs.data && runs.isPending ? (
        <div className="state" role="status">
          Loading runs…
        </div>
      ) : !runs.data && runs.error ? (
        <ErrorState what="runs" error={runs.error} onRetry={() => runs.refetch()} />
      ) : rows.length === 0 ? (
        <div className="state">
          {hasFilters(filters) ? (
            <>
              <p>
                <strong>No runs match these filters.</strong>
              </p>
              <p className="muted">Widen or clear the filters to see more runs.</p>
              <button type="button" className="btn" onClick={onClear}>
                Clear filters
              </button>
            </>
          ) : page > 1 ? (
            <p>
              <strong>No more runs.</strong> <span className="muted">Go back to the previous page.</span>
            </p>
          ) : (
            <>
              <p>
                <strong>No runs yet.</strong>
              </p>
              <p className="muted">
                Submit one to oah-api, e.g.{" "}
                <code>
                  curl -X POST $OAH_API_URL/api/v1/sessions/demo/runs -H 'content-type: application/json' -d
                  {' \'{"input":{"steps":[]}}\''}
                </code>
                ; it shows up here within a few seconds.
              </p>
            </>
          )}
        </div>
      ) : (
        <div className={`table-wrap${runs.isPlaceholderData ? " is-stale" : ""}`}>
          <table className="runs-table" aria-labelledby="runs-title" aria-busy={runs.isPlaceholderData}>
            <thead>
              <tr>
                <th scope="col" className="col-check">
                  <SelectAll
                    rows={rows}
                    selected={selected}
                    onChange={(all) =>
                      setSelected((s) => {
                        const next = new Map(s);
                        for (const run of rows) {
                          if (all) next.set(run.id, run);
                          else next.delete(run.id);
                        }
                        return next;
                      })
                    }
                  />
                </th>
                {COLUMNS.map((c) => (
                  <th key={c} scope="col" className={c === "attempts" ? "num" : undefined}>
                    {c}
                  </th>
                ))}
                <th scope="col">
                  <span className="visually-hidden">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((run) => {
                const eligible = isRequeueEligible(run);
                return (
                  <tr
                    key={run.id}
                    data-run-id={run.id}
                    className={selected.has(run.id) ? "is-selected" : undefined}
                  >
                    <td className="col-check">
                      <input
                        type="checkbox"
                        aria-label={`Select run ${run.id}`}
                        checked={selected.has(run.id)}
                        onChange={(event) => toggle(run, event.target.checked)}
                      />
                    </td>
                    <td>
                      <RunId id={run.id} />
                    </td>
                    <td className="mono ellipsis" title={run.sessionId}>
                      <Link
                        href={`/storage${filtersToQuery({ ...filters, sessionId: run.sessionId, runId: "" })}`}
                        className="plain-link"
                      >
                        {run.sessionId}
                      </Link>
                      <span className="subtle">#{run.seq}</span>
                    </td>
                    <td>
                      <StatusBadge status={run.status} />
                    </td>
                    <td title={run.errorMessage ?? undefined}>
                      <Code>{run.errorCode}</Code>
                    </td>
                    <td>
                      <RecoveryCell run={run} />
                    </td>
                    <td
                      className="num"
                      title={`${run.attempt} executions started; ${run.metadata?.recoveryAttempts ?? 0} automatic requeues`}
                    >
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
                      {eligible ? (
                        <button
                          type="button"
                          className="btn btn-small"
                          aria-label={`Requeue ${run.id}`}
                          disabled={pendingRow === run.id}
                          onClick={() => requeueOne.mutate({ runId: run.id, requestedBy: "console" })}
                        >
                          {pendingRow === run.id ? "Requeuing…" : "Requeue"}
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          className="btn"
          disabled={cursors.length === 1}
          onClick={() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c))}
        >
          ← Previous
        </button>
        <span className="muted small">Page {page}</span>
        <button
          type="button"
          className="btn"
          disabled={!runs.data?.nextCursor || runs.isPlaceholderData}
          onClick={() => {
            const next = runs.data?.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Next →
        </button>
      </nav>

      <ConfirmDialog
        open={confirming}
        title={`Requeue ${selected.size} ${selected.size === 1 ? "run" : "runs"}?`}
        confirmLabel={`Requeue ${selected.size}`}
        busy={requeueMany.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          requeueMany.mutate({ runIds: selectedRuns.map((r) => r.id).slice(0, 200), requestedBy: "console" })
        }
      >
        <p>
          Each run goes to the tail of its session's queue with a fresh recovery budget.{" "}
          {eligibleSelected === selected.size
            ? "All of them look eligible."
            : `${eligibleSelected} of them look eligible; the API refuses the others and says why.`}
        </p>
        {selected.size > 200 ? (
          <p className="notice-error">Only the first 200 are sent (the API's limit).</p>
        ) : null}
        <ul className="dialog-list">
          {selectedRuns.slice(0, 12).map((run) => (
            <li key={run.id}>
              <span className="mono">{run.id}</span> <StatusBadge status={run.status} />
            </li>
          ))}
          {selectedRuns.length > 12 ? <li className="muted">and {selectedRuns.length - 12} more</li> : null}
        </ul>
      </ConfirmDialog>
    </section>
  );
}
