"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";
import { REFRESH_MS } from "@/lib/constants";
import { EMPTY_FILTERS, filtersToQuery, parseFilters, type RunFilters } from "@/lib/storage-filters/view";
import { useTRPC } from "@/lib/trpc";
import { RefreshErrorBanner } from "./ErrorBanner";
import { FilterBar } from "./FilterBar";
import { OverviewCards } from "./OverviewCards";
import { PoolSection } from "./pool/PoolSection";
import { RunsPanel } from "./runs/RunsPanel";
import { Time } from "./Time";

export function StorageView() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = parseFilters(new URLSearchParams(searchParams.toString()));
  const query = filtersToQuery(filters);

  const overview = useQuery(trpc.admin.overview.queryOptions(undefined, { refetchInterval: REFRESH_MS }));

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
        <span className="live" title={`Refreshes every ${REFRESH_MS / 1000} s`}>
          <span className={`live-dot${overview.error ? " is-error" : ""}`} aria-hidden="true" />
          {overview.dataUpdatedAt ? (
            <>
              live · updated <Time value={overview.dataUpdatedAt} />
            </>
          ) : (
            "connecting…"
          )}
        </span>
      </div>
      {overview.data && overview.error ? (
        <RefreshErrorBanner errors={[overview.error]} updatedAt={overview.dataUpdatedAt || null} />
      ) : null}
      {!overview.data && overview.error ? (
        <RefreshErrorBanner errors={[overview.error]} updatedAt={null} />
      ) : null}
      <OverviewCards overview={overview.data} filters={filters} onApply={onApplyCard} />
      <FilterBar filters={filters} overview={overview.data} onFilters={onFilters} onClear={onClear} />
      <RunsPanel key={query} filters={filters} onFilters={onFilters} onClear={onClear} />
      <PoolSection />
    </div>
  );
}
