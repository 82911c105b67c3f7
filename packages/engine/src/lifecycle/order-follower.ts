import type { HostOrders } from "@oah/coordination";
import { type HostState, nextHostState } from "@oah/core";
import type { HostContext } from "../host-context";
import { PeriodicTask } from "../periodic-task";
import type { ElasticPool } from "../pool/elastic-pool";
import type { RecoveryOptions } from "../recovery/recover-stale-runs";
import { type DrainHost, emptyPool } from "./drain";

export type OrderFollowerHost = DrainHost & Pick<HostContext, "hostId" | "clock">;

export interface OrderFollowerOptions {
  host: OrderFollowerHost;
  pool: ElasticPool;
  orders: HostOrders;
  /** How often the host reads its order. */
  intervalMs: number;
  /** How long a drain lets the runs in hand finish before handing them to recovery. */
  drainTimeoutMs: number;
  recovery: Omit<RecoveryOptions, "lastSeenBefore">;
}

/**
 * Keeps a worker host in the state its order asks for (docs/spec.md §8): reads
 * the order on every tick and moves the pool accordingly. Cordon stops claiming; drain also
 * gives the runs in hand the drain timeout, then hands what is left to recovery, and ends in
 * `drained`; no order (uncordon) claims again.
 */
export class OrderFollower {
  private current: HostState = "active";
  private readonly ticks: PeriodicTask;
  private draining: Promise<void> | undefined;
  private emptied = false;
  private readonly drainedListeners = new Set<() => void>();

  constructor(private readonly options: OrderFollowerOptions) {
    this.ticks = new PeriodicTask(() => this.tick(), options.intervalMs, options.host.clock);
  }

  get state(): HostState {
    return this.current;
  }

  /** Called once the host has drained (its runs finished or handed to recovery). */
  onDrained(listener: () => void): () => void {
    this.drainedListeners.add(listener);
    return () => this.drainedListeners.delete(listener);
  }

  start(): void {
    this.ticks.start();
  }

  stop(): Promise<void> {
    return this.ticks.stop();
  }

  async tick(): Promise<void> {
    const { orders, host } = this.options;
    let order: Awaited<ReturnType<HostOrders["orderOf"]>>;
    try {
      order = await orders.orderOf(host.hostId);
    } catch (error) {
      host.logger.warn({ err: error }, "could not read this host's order; keeping its state");
      return;
    }
    const next = nextHostState(this.current, order, this.emptied);
    if (next !== this.current) this.enter(next);
  }

  private enter(next: HostState): void {
    const { pool, host } = this.options;
    const previous = this.current;
    this.current = next;
    pool.hostState = next;
    host.logger.info({ from: previous, to: next }, "host state");
    if (next === "active") {
      this.emptied = false;
      pool.resumeClaiming();
      return;
    }
    pool.stopClaiming();
    if (next === "draining") this.draining ??= this.drain();
    if (next === "drained") for (const listener of this.drainedListeners) listener();
  }

  private async drain(): Promise<void> {
    const { pool, host, drainTimeoutMs, recovery } = this.options;
    const emptied = await emptyPool(pool, host, drainTimeoutMs, recovery, () => this.current === "draining");
    this.draining = undefined;
    if (this.current !== "draining") return;
    this.emptied = emptied;
    await this.tick();
  }
}
