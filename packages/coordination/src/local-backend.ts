import type { FairShare } from "@oah/core";
import type { Backend } from "./backend";
import { LocalEventBus } from "./event-bus";
import { LocalHostLeases } from "./host-leases";
import { LocalHostOrders } from "./host-orders";
import { localMaintenanceLock } from "./maintenance-lock";
import { MemorySessionQueue } from "./memory-session-queue";
import { LocalModelLimiter } from "./model-limiter";
import { LocalRunSignalBus } from "./run-signal-bus";

export interface LocalBackendOptions {
  /** How long a session lock lasts unless renewed. */
  lockTtlMs: number;
  /** Weights and caps by workspace (default: equal weights, no caps). */
  fairShare?: FairShare;
}

/**
 * The parts of a deployment that is one process (docs/spec.md §2, without Redis): all in
 * its memory. There is no other host to publish a pool, a worker or a report to.
 */
export function localBackend(options: LocalBackendOptions): Backend {
  const queue = new MemorySessionQueue({ lockTtlMs: options.lockTtlMs, fairShare: options.fairShare });
  const signals = new LocalRunSignalBus();
  const events = new LocalEventBus();
  return {
    kind: "in-process",
    queue,
    signals,
    events,
    maintenanceLock: localMaintenanceLock,
    board: null,
    workers: null,
    leases: new LocalHostLeases(),
    orders: new LocalHostOrders(),
    modelLimiter: new LocalModelLimiter(),
    controller: null,
    async close() {
      await queue.close();
      await signals.close();
      await events.close();
    },
  };
}
