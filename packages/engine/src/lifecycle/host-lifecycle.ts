import type { HostOrders, RunSignalBus } from "@oah/coordination";
import type { HostState } from "@oah/core";
import type { BulkJobRunner } from "../bulk/bulk-runner";
import type { Heartbeat } from "../heartbeat";
import type { HostContext } from "../host-context";
import type { Maintenance } from "../maintenance/maintenance";
import type { ElasticPool } from "../pool/elastic-pool";
import type { RecoveryOptions } from "../recovery/recover-stale-runs";
import { drainPool } from "./drain";
import { OrderFollower } from "./order-follower";

export type LifecycleHost = Pick<
  HostContext,
  "hostId" | "clock" | "store" | "active" | "heldWaits" | "settling" | "leases" | "logger" | "liveness"
>;

export interface HostLifecycleParts {
  host: LifecycleHost;
  /** This host's workers and their maintenance; null on a host that serves the API only. */
  pool: ElasticPool | null;
  maintenance: Maintenance | null;
  heartbeat: Heartbeat;
  /** The worker of the store's bulk jobs, on an API process; null elsewhere. */
  bulkJobs: BulkJobRunner | null;
  signals: RunSignalBus;
  /** Where this host reads its order (cordon, drain), every `orderIntervalMs`. */
  orders: HostOrders;
  orderIntervalMs: number;
  drainTimeoutMs: number;
  /** How runs left unfinished by a drain are recovered. */
  recovery: Omit<RecoveryOptions, "lastSeenBefore">;
}

/**
 * The life of one host's engine: start (maintenance first, then the lease, the pool and
 * the heartbeat), the signals that reach its runs, and stop (drain, then let go of all).
 */
export class HostLifecycle {
  private unsubscribeSignals: (() => void) | undefined;
  private unsubscribeLiveness: (() => void) | undefined;
  private state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  private readonly follower: OrderFollower | null;

  constructor(private readonly parts: HostLifecycleParts) {
    const { host, pool, orders, orderIntervalMs, drainTimeoutMs, recovery } = parts;
    this.follower = pool
      ? new OrderFollower({ host, pool, orders, intervalMs: orderIntervalMs, drainTimeoutMs, recovery })
      : null;
  }

  /** The state its order put this host in (docs/spec.md §8); a host without workers is always active. */
  get hostState(): HostState {
    return this.follower?.state ?? "active";
  }

  /** Called once this host has drained under a drain order. */
  onDrained(listener: () => void): () => void {
    return this.follower?.onDrained(listener) ?? (() => {});
  }

  get ready(): boolean {
    return this.state === "running";
  }

  slots() {
    return this.parts.pool?.slots() ?? [];
  }

  /**
   * A worker host recovers stale runs and fills the queue from the store before
   * its workers claim anything; then the pool starts.
   */
  async start(): Promise<void> {
    this.state = "starting";
    const { host, pool, maintenance, heartbeat, signals } = this.parts;
    if (maintenance) {
      await maintenance.runAtStart();
      maintenance.start();
    }
    this.unsubscribeSignals = signals.subscribe(({ kind, runId }) => {
      if (kind === "cancel") host.active.abort(runId, { kind: "cancel" });
      else if (kind === "interrupt") host.active.interrupt(runId);
      else host.heldWaits.wake(runId);
    });
    this.unsubscribeLiveness = host.liveness?.onLost(() => this.livenessLost());
    // The lease is in place before this host executes anything.
    await heartbeat.tick();
    // An order given before a restart (a cordon) holds from the first claim on.
    await this.follower?.tick();
    await pool?.start();
    this.follower?.start();
    heartbeat.start();
    this.parts.bulkJobs?.start();
    this.state = "running";
  }

  /**
   * This host could not renew its lease in time: other hosts may soon recover its runs,
   * and the watchdog has killed (or is killing) their steps. It stops them and writes
   * nothing more; recovery takes them over once they are stale.
   */
  private livenessLost(): void {
    const { active, liveness, logger } = this.parts.host;
    const runs = active.list();
    for (const run of runs) run.controller.abort({ kind: "fenced" });
    logger.error(
      { runs: runs.length, windowMs: liveness?.windowMs },
      "this host could not renew its lease in time: its runs were stopped and are left to recovery",
    );
  }

  /**
   * Stops claiming, lets runs in hand finish for up to the drain timeout, then
   * aborts the rest and hands them to recovery by the configured strategy.
   */
  async stop(): Promise<void> {
    if (this.state === "stopping" || this.state === "stopped") return;
    this.state = "stopping";
    const { host, pool, maintenance, heartbeat, orders } = this.parts;
    await this.parts.bulkJobs?.stop();
    await maintenance?.stop();
    await this.follower?.stop();
    if (pool) {
      await drainPool(pool, host, this.parts.drainTimeoutMs, this.parts.recovery);
      await pool.stopped();
    }
    await host.settling.done();
    await heartbeat.stop();
    await host.leases.remove(host.hostId).catch(() => {});
    // Stopped for good: a later host of the same name starts without this one's order.
    if (pool) await orders.give(host.hostId, null).catch(() => {});
    this.unsubscribeSignals?.();
    this.unsubscribeLiveness?.();
    this.state = "stopped";
  }
}
