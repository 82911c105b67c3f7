import type { Backend } from "@oah/coordination";
import type { FairShare } from "@oah/core";
import type { RedisClient } from "./client";
import { RedisControllerChannel } from "./coordination/controller-channel";
import { RedisEventBus } from "./coordination/event-bus";
import { RedisHostLeases } from "./coordination/host-leases";
import { RedisHostOrders } from "./coordination/host-orders";
import { RedisMaintenanceLock } from "./coordination/maintenance-lock";
import { RedisModelLimiter } from "./coordination/model-limiter";
import { RedisPoolBoard } from "./coordination/pool-board";
import { RedisRunSignalBus } from "./coordination/run-signal-bus";
import { RedisWorkerRegistry } from "./coordination/worker-registry";
import { RedisSessionQueue } from "./redis-session-queue";

export interface RedisBackendOptions {
  /** The prefix of every key and channel of this deployment (OAH_REDIS_PREFIX). */
  prefix: string;
  /** How long a session lock lasts unless renewed. */
  lockTtlMs: number;
  /** Weights and caps by workspace (default: equal weights, no caps); the same on every host. */
  fairShare?: FairShare;
}

/** The parts over Redis as their own classes: a controller also makes the writes only a leader may. */
export interface RedisBackend extends Backend {
  readonly kind: "redis";
  readonly queue: RedisSessionQueue;
  readonly signals: RedisRunSignalBus;
  readonly events: RedisEventBus;
  readonly maintenanceLock: RedisMaintenanceLock;
  readonly board: RedisPoolBoard;
  readonly workers: RedisWorkerRegistry;
  readonly leases: RedisHostLeases;
  readonly orders: RedisHostOrders;
  readonly modelLimiter: RedisModelLimiter;
  readonly controller: RedisControllerChannel;
}

/** A part made at its first use, once. */
class OnFirstUse<T> {
  private part: T | undefined;

  constructor(private readonly make: () => T) {}

  get(): T {
    if (this.part === undefined) this.part = this.make();
    return this.part;
  }

  /** The part, if it was made. */
  get made(): T | undefined {
    return this.part;
  }
}

/**
 * The parts of a deployment whose processes share Redis (docs/spec.md §2), over `redis`, the
 * command connection, which the backend then owns: closing it closes the parts, then that
 * connection. Each part is made at its first use, so that a process opens the subscriber
 * connections of those it uses only (a controller neither hears run signals nor serves streams).
 */
export function redisBackend(redis: RedisClient, options: RedisBackendOptions): RedisBackend {
  const { prefix, lockTtlMs, fairShare } = options;
  const queue = new OnFirstUse(() => new RedisSessionQueue({ redis, prefix, lockTtlMs, fairShare }));
  const signals = new OnFirstUse(() => new RedisRunSignalBus(redis, prefix));
  const events = new OnFirstUse(() => new RedisEventBus(redis, prefix));
  const maintenanceLock = new OnFirstUse(() => new RedisMaintenanceLock(redis, prefix));
  const board = new OnFirstUse(() => new RedisPoolBoard(redis, prefix));
  const workers = new OnFirstUse(() => new RedisWorkerRegistry(redis, prefix));
  const leases = new OnFirstUse(() => new RedisHostLeases(redis, prefix));
  const orders = new OnFirstUse(() => new RedisHostOrders(redis, prefix));
  const controller = new OnFirstUse(() => new RedisControllerChannel(redis, prefix));
  const modelLimiter = new OnFirstUse(() => new RedisModelLimiter(redis, prefix));
  return {
    kind: "redis",
    get queue() {
      return queue.get();
    },
    get signals() {
      return signals.get();
    },
    get events() {
      return events.get();
    },
    get maintenanceLock() {
      return maintenanceLock.get();
    },
    get board() {
      return board.get();
    },
    get workers() {
      return workers.get();
    },
    get leases() {
      return leases.get();
    },
    get orders() {
      return orders.get();
    },
    get modelLimiter() {
      return modelLimiter.get();
    },
    get controller() {
      return controller.get();
    },
    async close() {
      await queue.made?.close();
      await signals.made?.close();
      await events.made?.close();
      redis.disconnect();
    },
  };
}
