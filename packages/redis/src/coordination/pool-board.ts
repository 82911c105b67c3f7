import type { PoolReport, PoolSample } from "@oah/contract";
import type { PoolBoard } from "@oah/coordination";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";

/** Each host's pool report and history as keys with a TTL, indexed by expiry. */
export class RedisPoolBoard implements PoolBoard {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  async publish(report: PoolReport, ttlMs: number): Promise<void> {
    const { hostId } = report.snapshot;
    const now = Date.now();
    await this.redis
      .multi()
      .set(this.keys.poolHost(hostId), JSON.stringify(report), "PX", ttlMs)
      .zadd(this.keys.poolHosts, now + ttlMs, hostId)
      .zremrangebyscore(this.keys.poolHosts, "-inf", now)
      .exec();
  }

  async publishHistory(hostId: string, samples: readonly PoolSample[], ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.poolHistory(hostId), JSON.stringify(samples), "PX", ttlMs);
  }

  async reports(): Promise<PoolReport[]> {
    const hosts = await this.redis.zrangebyscore(this.keys.poolHosts, Date.now(), "+inf");
    if (hosts.length === 0) return [];
    const values = await this.redis.mget(hosts.map((h) => this.keys.poolHost(h)));
    return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as PoolReport);
  }

  async history(hostId: string): Promise<PoolSample[]> {
    const value = await this.redis.get(this.keys.poolHistory(hostId));
    return value ? (JSON.parse(value) as PoolSample[]) : [];
  }

  async remove(hostId: string): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.poolHost(hostId), this.keys.poolHistory(hostId))
      .zrem(this.keys.poolHosts, hostId)
      .exec();
  }
}
