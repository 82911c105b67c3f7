import type { ControllerChannel } from "./controller-channel";
import type { EventBus } from "./event-bus";
import type { HostLeases } from "./host-leases";
import type { HostOrders } from "./host-orders";
import type { MaintenanceLock } from "./maintenance-lock";
import type { ModelLimiter } from "./model-limiter";
import type { PoolBoard } from "./pool-board";
import type { RunSignalBus } from "./run-signal-bus";
import type { SessionQueue } from "./session-queue";
import type { WorkerRegistry } from "./worker-registry";

/**
 * Every part the processes of one deployment coordinate through (docs/spec.md §2): this
 * process's own, in memory (`localBackend`), or shared over Redis (`redisBackend` of
 * @oah/redis). The engine takes it whole; closing it closes its parts.
 */
export interface Backend {
  /** Where the parts live: in this process only, or in Redis, shared with the other processes. */
  readonly kind: "in-process" | "redis";
  /** The sessions' queues, their ready set and their locks (docs/spec.md §5). */
  readonly queue: SessionQueue;
  /** Cancels and tool results, carried to whichever host executes the run. */
  readonly signals: RunSignalBus;
  /** Wakes the event streams of every API process when events are written or a live event comes. */
  readonly events: EventBus;
  /** Lets one host at a time run each maintenance task. */
  readonly maintenanceLock: MaintenanceLock;
  /** Where the pools of every live host are published; null when this process is the only host. */
  readonly board: PoolBoard | null;
  /** The worker leases of every host, by which a session lock's holder is known alive; null: one process. */
  readonly workers: WorkerRegistry | null;
  /** Each worker host's proof of life: the runs it executes. */
  readonly leases: HostLeases;
  /** The orders to worker hosts (cordon, drain). */
  readonly orders: HostOrders;
  /** The capacity of the model endpoints under their limits (OAH_MODEL_LIMITS), shared by every host. */
  readonly modelLimiter: ModelLimiter;
  /** How the API reaches the fleet's controllers; null where none can run. */
  readonly controller: ControllerChannel | null;
  /** Closes every part: their listeners, their connections. */
  close(): Promise<void>;
}
