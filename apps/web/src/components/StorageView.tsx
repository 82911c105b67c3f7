"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo } from "react";
import { REFRESH_MS } from "@/lib/constants";
import { refreshEvery } from "@/lib/live/state";
import { throttle } from "@/lib/live/throttle";
import { EMPTY_FILTERS, filtersToQuery, parseFilters, type RunFilters } from "@/lib/storage-filters/view";
import { useTRPC, useTRPCClient } from "@/lib/trpc";
import { RefreshErrorBanner } from "./ErrorBanner";
import { FilterBar } from "./FilterBar";
import { LiveBadge } from "./live/LiveBadge";
import { useLiveStream } from "./live/useLiveStream";
import { OverviewCards } from "./OverviewCards";
import { PoolSection } from "./pool/PoolSection";
import { RunsPanel } from "./runs/RunsPanel";
import { Time } from "./Time";

/** How often changes anywhere may refetch the runs and the counts: a busy API costs two calls a second. */
const CHANGES_REFETCH_MS = 500;

/**
 * Refetches the runs and the counts when events of any session are written, while the stream
 * of changes is held; says whether it is (without it, they refresh periodically).
 */
function useStorageChanges() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const refetch = useMemo(
    () =>
      throttle(() => {
        void queryClient.invalidateQueries({ queryKey: trpc.admin.overview.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.admin.runs.pathKey() });
      }, CHANGES_REFETCH_MS),
    [queryClient, trpc],
  );
  useEffect(() => refetch.cancel, [refetch]);
  const live = useLiveStream("changes", (lifecycle) =>
    client.admin.onChanges.subscribe(undefined, { ...lifecycle, onData: refetch }),
  );
  // What changed while the stream was away is not announced again.
  useEffect(() => {
    if (live === "live") refetch();
  }, [live, refetch]);
  return live;
}

export function StorageView() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = parseFilters(new URLSearchParams(searchParams.toString()));
  const query = filtersToQuery(filters);

  const live = useStorageChanges();
  const refresh = refreshEvery(live, REFRESH_MS);
  const overview = useQuery(trpc.admin.overview.queryOptions(undefined, { refetchInterval: refresh }));

  const navigate = useCallback(
    (next: RunFilters) => router.replace(`${pathname}${filtersToQuery(next)}`, { scroll: false }),
    [router, pathname],
  );
  const onFilters = (change: Partial<RunFilters>) => navigate({ ...filters, ...change });
  const onApplyCard = useCallback(
    (change: Partial<RunFilters>) => navigate({ ...EMPTY_FILTERS, limit: filters.limit, ...change }),
    [navigate, filters.limit],
  );
  const onClear = useCallback(
    () => navigate({ ...EMPTY_FILTERS, limit: filters.limit }),
    [navigate, filters.limit],
  );

  return (
    <div className="storage">
      <div className="page-head">
        <h1>Storage</h1>
        <LiveBadge state={live} failed={Boolean(overview.error)}>
          {overview.dataUpdatedAt ? (
            <>
              updated <Time value={overview.dataUpdatedAt} />
            </>
          ) : null}
        </LiveBadge>
      </div>
      {overview.data && overview.error ? (
        <RefreshErrorBanner errors={[overview.error]} updatedAt={overview.dataUpdatedAt || null} />
      ) : null}
      {!overview.data && overview.error ? (
        <RefreshErrorBanner errors={[overview.error]} updatedAt={null} />
      ) : null}
      <OverviewCards overview={overview.data} filters={filters} onApply={onApplyCard} />
      <FilterBar filters={filters} overview={overview.data} onFilters={onFilters} onClear={onClear} />
      <RunsPanel key={query} filters={filters} refresh={refresh} onFilters={onFilters} onClear={onClear} />
      <PoolSection />
    </div>
  );
}
