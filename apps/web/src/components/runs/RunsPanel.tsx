"use client";

import type { RunSummary } from "@oah/contract";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useMay } from "@/lib/actor";
import type { refreshEvery } from "@/lib/live/state";
import { type Cursors, FIRST_PAGE, pageText, previousPage } from "@/lib/runs-panel/paging";
import { filtersToInput, hasFilters, type RunFilters } from "@/lib/storage-filters/view";
import { errorFacts, useTRPC } from "@/lib/trpc";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";
import { BulkBar } from "./BulkBar";
import { NoRuns } from "./NoRuns";
import { Pager } from "./Pager";
import { RequeueDialog } from "./RequeueDialog";
import { RequeueResults } from "./RequeueResults";
import { RunsHead } from "./RunsHead";
import { RunsTable } from "./RunsTable";
import { useRequeues } from "./useRequeues";
import { useSelection } from "./useSelection";

/** The runs of the view, a keyset page at a time, with single and bulk requeue. */
export function RunsPanel({
  filters,
  refresh,
  onFilters,
  onClear,
}: {
  filters: RunFilters;
  /** The periodic refresh (see refreshEvery). */
  refresh: ReturnType<typeof refreshEvery>;
  onFilters: (f: Partial<RunFilters>) => void;
  onClear: () => void;
}) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<Cursors>(FIRST_PAGE);
  const selection = useSelection();
  const requeues = useRequeues(selection);
  const mayRequeue = useMay("operate");

  const cursor = cursors[cursors.length - 1];
  const filter = filtersToInput(filters);
  const input = { ...filter, limit: filters.limit, ...(cursor ? { cursor } : {}) };
  const runs = useQuery(
    trpc.admin.runs.queryOptions(input, { refetchInterval: refresh, placeholderData: keepPreviousData }),
  );

  // A cursor the API no longer accepts (e.g. made for other filters): back to the first page.
  const cursorRefused = runs.error && errorFacts(runs.error).errorCode === "invalid_cursor";
  useEffect(() => {
    if (cursorRefused) setCursors(FIRST_PAGE);
  }, [cursorRefused]);

  // The wire type tRPC infers loses RunMetadata's named members (it has an index signature); the
  // JSON is the API's RunSummary exactly.
  const rows = (runs.data?.items ?? []) as unknown as RunSummary[];
  const page = cursors.length;
  const caption = `${runs.data ? pageText(page, filters.limit, rows.length) : ""}${runs.isFetching ? " · refreshing…" : ""}`;

  return (
    <section className="panel runs-panel" aria-labelledby="runs-title">
      <RunsHead filters={filters} caption={caption} onFilters={onFilters} />
      {mayRequeue ? <BulkBar selection={selection} requeues={requeues} filter={filter} /> : null}

      {requeues.results ? (
        <RequeueResults items={requeues.results} onDismiss={requeues.dismissResults} />
      ) : null}

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
        <NoRuns filtered={hasFilters(filters)} page={page} onClear={onClear} />
      ) : (
        <RunsTable
          rows={rows}
          stale={runs.isPlaceholderData}
          filters={filters}
          selection={selection}
          requeues={requeues}
        />
      )}

      <Pager
        page={page}
        canGoBack={cursors.length > 1}
        canGoOn={Boolean(runs.data?.nextCursor) && !runs.isPlaceholderData}
        onPrevious={() => setCursors(previousPage)}
        onNext={() => {
          const next = runs.data?.nextCursor;
          if (next) setCursors((c) => [...c, next]);
        }}
      />

      <RequeueDialog selection={selection} requeues={requeues} />
    </section>
  );
}
