"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { REFRESH_MS } from "@/lib/constants";
import { poolFacts } from "@/lib/pool/facts";
import { historyPoints } from "@/lib/pool/history";
import { ALL_HOSTS, shownHost } from "@/lib/pool/hosts";
import { liveHostsText } from "@/lib/pool/labels";
import { decisionTimeline } from "@/lib/pool/timeline";
import { useTRPC } from "@/lib/trpc";
import { ErrorState, RefreshErrorBanner } from "../ErrorBanner";
import { ControllerFacts } from "./ControllerFacts";
import { Decisions } from "./Decisions";
import { Fleet } from "./Fleet";
import { HostPicker } from "./HostPicker";
import { PoolCharts } from "./PoolCharts";
import { Slots } from "./Slots";
import { SnapshotFacts } from "./SnapshotFacts";
import { Workspaces } from "./Workspaces";

export function PoolSection() {
  const trpc = useTRPC();
  const pool = useQuery(trpc.admin.pool.queryOptions(undefined, { refetchInterval: REFRESH_MS }));
  const [chosen, setChosen] = useState<string>(ALL_HOSTS);

  const data = pool.data;
  const hosts = data?.hosts ?? [];
  const shown = shownHost(hosts, chosen);
  const all = shown.hostId === ALL_HOSTS;
  const facts = poolFacts(shown.snapshots);

  return (
    <section className="panel pool" id="pool" aria-labelledby="pool-title">
      <div className="panel-head">
        <h2 id="pool-title">Pool</h2>
        <span className="muted small">{data ? liveHostsText(hosts.length) : ""}</span>
      </div>
      {data && pool.error ? (
        <RefreshErrorBanner errors={[pool.error]} updatedAt={pool.dataUpdatedAt || null} />
      ) : null}
      {!data && pool.isPending ? (
        <div className="state" role="status">
          Loading the pool…
        </div>
      ) : !data && pool.error ? (
        <ErrorState what="the pool" error={pool.error} onRetry={() => pool.refetch()} />
      ) : hosts.length === 0 ? (
        <div className="state">
          <p>
            <strong>No live worker host.</strong>
          </p>
          <p className="muted">
            Start one: <code>npx oah-sandbox</code> (split mode), or run oah-api without{" "}
            <code>--api-only</code>.
          </p>
          {data ? <ControllerFacts controller={data.controller} /> : null}
        </div>
      ) : (
        <>
          {data ? <Fleet overview={data} readAt={pool.dataUpdatedAt} /> : null}
          {data ? <Workspaces workload={data} /> : null}
          <HostPicker hosts={hosts} shown={shown.hostId} onChoose={setChosen} />
          {facts ? <SnapshotFacts facts={facts} total={all} /> : null}
          {shown.host ? <Slots host={shown.host} /> : null}
          <PoolCharts points={data ? historyPoints(data.history, shown.hostId) : []} />
          <div className="decisions">
            <h3>
              Recent decisions <span className="muted small">newest first</span>
            </h3>
            <Decisions
              entries={decisionTimeline(
                data?.recentDecisions ?? [],
                data?.controller?.decisions ?? [],
                shown.hostId,
              )}
              showHost={all}
            />
          </div>
        </>
      )}
    </section>
  );
}
