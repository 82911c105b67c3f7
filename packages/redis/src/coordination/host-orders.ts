import type { HostOrders } from "@oah/coordination";
import { HOST_ORDERS, type HostOrder } from "@oah/core";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";
import { defineScripts, type ScriptedRedis } from "../scripts";

const isOrder = (value: string | null): value is HostOrder =>
  value !== null && (HOST_ORDERS as readonly string[]).includes(value);

/** The orders to worker hosts as one hash, hostId → order. */
export class RedisHostOrders implements HostOrders {
  private readonly redis: ScriptedRedis;
  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = defineScripts(redis);
    this.keys = redisKeys(prefix);
  }

  /** An operator's order, through the API. */
  async give(hostId: string, order: HostOrder | null): Promise<void> {
    if (order === null) await this.redis.hdel(this.keys.hostOrders, hostId);
    else await this.redis.hset(this.keys.hostOrders, hostId, order);
  }

  /** The controller's order: false, and nothing written, when `fence` is no longer the leader's lease. */
  async giveAsLeader(fence: string, hostId: string, order: HostOrder | null): Promise<boolean> {
    const { controllerLeader, hostOrders } = this.keys;
    return (await this.redis.oahFencedHset(controllerLeader, hostOrders, fence, hostId, order ?? "")) === 1;
  }

  /** Every order given and not withdrawn, by host. */
  async all(): Promise<Map<string, HostOrder>> {
    const entries = Object.entries(await this.redis.hgetall(this.keys.hostOrders));
    return new Map(entries.filter((e): e is [string, HostOrder] => isOrder(e[1])));
  }

  async orderOf(hostId: string): Promise<HostOrder | null> {
    const value = await this.redis.hget(this.keys.hostOrders, hostId);
    return isOrder(value) ? value : null;
  }
}
