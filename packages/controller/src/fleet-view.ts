import type { PoolReport } from "@oah/contract";
import type { FleetHost, FleetSignals, QueuePressure } from "@oah/core";
import { isHealthyLease, type PoolBoard, type WorkerRegistry } from "@oah/engine";

export interface FleetSources {
  /** The global queue's figures (the same script the pools read). */
  pressure(): Promise<QueuePressure>;
  registry: Pick<WorkerRegistry, "list">;
  board: Pick<PoolBoard, "reports">;
}

/** A sandbox as the pools' board shows it: its order's state, its busy slots, and whether its report is on time. */
export function fleetHostOf({ snapshot }: PoolReport, now: number): FleetHost {
  return {
    hostId: snapshot.hostId,
    state: snapshot.state,
    healthy: now - snapshot.at <= 2 * snapshot.intervalMs,
    busySlots: snapshot.busySlots,
  };
}

/**
 * What the leader weighs each tick (issue 17 §2): the global pressure, the sandboxes' workers
 * from the registry (healthy, claiming), and each sandbox from the pools' board. Embedded
 * pools (an oah-api with workers) are not the controller's to size, and are left out.
 */
export async function readFleet(sources: FleetSources, now: number): Promise<FleetSignals> {
  const [pressure, leases, reports] = await Promise.all([
    sources.pressure(),
    sources.registry.list(),
    sources.board.reports(),
  ]);
  const workers = leases.filter(
    (l) =>
      l.processKind === "standalone" &&
      l.state !== "stopping" &&
      l.hostState === "active" &&
      isHealthyLease(l, now),
  );
  return {
    ...pressure,
    activeWorkers: workers.length,
    busyWorkers: workers.filter((l) => l.state === "busy").length,
    hosts: reports
      .filter((r) => r.snapshot.processKind === "standalone")
      .map((r) => fleetHostOf(r, now))
      .sort((a, b) => a.hostId.localeCompare(b.hostId)),
  };
}
