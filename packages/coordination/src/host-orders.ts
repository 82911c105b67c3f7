import type { HostOrder } from "@oah/core";

/**
 * Where the orders to worker hosts are kept (docs/spec.md §8): cordon or drain, given through
 * the API by an operator or by the controller, read by the host on each of its ticks. An
 * order outlives the process that gave it; the host clears its own when it stops for good.
 */
export interface HostOrders {
  /** Gives `hostId` this order; null withdraws it (uncordon). */
  give(hostId: string, order: HostOrder | null): Promise<void>;
  orderOf(hostId: string): Promise<HostOrder | null>;
}

/** One process: the orders to its own host, in memory. */
export class LocalHostOrders implements HostOrders {
  private readonly orders = new Map<string, HostOrder>();

  async give(hostId: string, order: HostOrder | null): Promise<void> {
    if (order === null) this.orders.delete(hostId);
    else this.orders.set(hostId, order);
  }

  async orderOf(hostId: string): Promise<HostOrder | null> {
    return this.orders.get(hostId) ?? null;
  }
}
