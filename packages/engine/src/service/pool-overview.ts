import type { FleetWorkload, PoolOverview, PoolReport, PoolSample } from "@oah/contract";

/** Where the pools' reports are read: the board every live host publishes to, or this process's own pool. */
export interface PoolReports {
  reports(): Promise<PoolReport[]>;
  history(hostId: string): Promise<PoolSample[]>;
}

/** The pools of every live host, their decisions newest first, and each one's history. */
export async function poolOverview(
  pools: PoolReports,
): Promise<Omit<PoolOverview, "controller" | keyof FleetWorkload>> {
  const reports = await pools.reports();
  const history = await Promise.all(
    reports.map(async ({ snapshot }) => ({
      hostId: snapshot.hostId,
      samples: await pools.history(snapshot.hostId),
    })),
  );
  const recentDecisions = reports
    .flatMap(({ snapshot, recentDecisions }) =>
      recentDecisions.map((d) => ({ ...d, hostId: snapshot.hostId })),
    )
    .sort((a, b) => b.at - a.at);
  return {
    hosts: reports.map((r) => r.snapshot).sort((a, b) => a.hostId.localeCompare(b.hostId)),
    recentDecisions,
    history,
  };
}
