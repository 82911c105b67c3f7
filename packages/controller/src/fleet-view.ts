import type { PoolReport } from "@oah/contract";
import { isHealthyLease, type PoolBoard, type WorkerRegistry } from "@oah/coordination";
import {
  type FleetHost,
  type FleetSignals,
  type HostOrder,
  nextHostState,
  type QueuePressure,
} from "@oah/core";

export interface FleetSources {
  /** The global queue's figures (the same script the pools read). */
  pressure(): Promise<QueuePressure>;
  registry: Pick<WorkerRegistry, "list">;
  board: Pick<PoolBoard, "reports">;
  /** The orders given to hosts (RedisHostOrders.all). */
  orders(): Promise<ReadonlyMap<string, HostOrder>>;
}

/**
 * A sandbox as the pools' board shows it (its busy slots, whether its report is on time) in
 * the state its order puts it in: an order given since its last report (a drain the leader
 * has just given) already counts, so that the next tick does not pick another victim.
 * A withdrawn order (uncordon) shows at the host's own next report.
 */
export function fleetHostOf({ snapshot }: PoolReport, order: HostOrder | null, now: number): FleetHost {
  return {
    hostId: snapshot.hostId,
    // No order is not an uncordon to anticipate: a host that drained clears its own order as it
    // exits, and must not look active on its way out.
    state: order ? nextHostState(snapshot.state, order, snapshot.state === "drained") : snapshot.state,
    healthy: now - snapshot.at <= 2 * snapshot.intervalMs,
    busySlots: snapshot.busySlots,
  };
}

/**
 * What the leader weighs each tick (docs/spec.md §8): the global pressure, the sandboxes' workers
 * from the registry (healthy, claiming), and each sandbox from the pools' board. Embedded
 * pools (an oah-api with workers) are not the controller's to size, and are left out.
 *
 * A sandbox whose report has lapsed (a host frozen or starved of CPU for a few seconds) is
 * kept for `graceMs` as it was last seen, but late: it still counts, and it blocks a
 * scale-down, instead of being replaced at once and found again a moment later.
 */
export class FleetView {
  private readonly lastSeen = new Map<string, { host: FleetHost; at: number }>();

  constructor(
    private readonly sources: FleetSources,
    private readonly graceMs = 5_000,
  ) {}

  async read(now: number): Promise<FleetSignals> {
    const { sources } = this;
    const [pressure, leases, reports, orders] = await Promise.all([
      sources.pressure(),
      sources.registry.list(),
      sources.board.reports(),
      sources.orders(),
    ]);
    const workers = leases.filter(
      (l) =>
        l.processKind === "standalone" &&
        l.state !== "stopping" &&
        l.hostState === "active" &&
        isHealthyLease(l, now),
    );
    const listed = reports
      .filter((r) => r.snapshot.processKind === "standalone")
      .map((r) => fleetHostOf(r, orders.get(r.snapshot.hostId) ?? null, now));
    for (const host of listed) this.lastSeen.set(host.hostId, { host, at: now });
    const listedIds = new Set(listed.map((h) => h.hostId));
    const lapsed: FleetHost[] = [];
    for (const [hostId, { host, at }] of this.lastSeen) {
      if (listedIds.has(hostId)) continue;
      if (now - at > this.graceMs) this.lastSeen.delete(hostId);
      else lapsed.push({ ...host, healthy: false });
    }
    return {
      ...pressure,
      activeWorkers: workers.length,
      busyWorkers: workers.filter((l) => l.state === "busy").length,
      hosts: [...listed, ...lapsed].sort((a, b) => a.hostId.localeCompare(b.hostId)),
    };
  }
}
