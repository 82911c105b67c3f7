import type { WorkerLease } from "@oah/contract";
import type { WorkerRegistry } from "@oah/engine";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";

/** Leases as keys with a TTL, indexed by expiry in a sorted set that is pruned as it is written. */
export class RedisWorkerRegistry implements WorkerRegistry {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  async publish(leases: readonly WorkerLease[], ttlMs: number): Promise<void> {
    const now = Date.now();
    const batch = this.redis.multi();
    for (const lease of leases) {
      batch.set(this.keys.worker(lease.workerId), JSON.stringify(lease), "PX", ttlMs);
      batch.zadd(this.keys.workers, lease.expiresAt, lease.workerId);
    }
    batch.zremrangebyscore(this.keys.workers, "-inf", now);
    await batch.exec();
  }

  async list(): Promise<WorkerLease[]> {
    const ids = await this.redis.zrangebyscore(this.keys.workers, Date.now(), "+inf");
    if (ids.length === 0) return [];
    const values = await this.redis.mget(ids.map((id) => this.keys.worker(id)));
    return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as WorkerLease);
  }

  async remove(workerIds: readonly string[]): Promise<void> {
    if (workerIds.length === 0) return;
    await this.redis
      .multi()
      .del(...workerIds.map((id) => this.keys.worker(id)))
      .zrem(this.keys.workers, ...workerIds)
      .exec();
  }
}
