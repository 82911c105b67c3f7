import type { WorkerLease } from "@oah/contract";
import type { WorkerRegistry } from "@oah/coordination";
import { hostOfWorker } from "@oah/core";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";

/** Leases (or worker ids) grouped by the host they belong to. */
function byHost<T>(items: readonly T[], hostOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const host = hostOf(item);
    const group = groups.get(host);
    if (group) group.push(item);
    else groups.set(host, [item]);
  }
  return groups;
}

/**
 * Each host's worker leases as one record with a TTL (a JSON list), indexed by expiry in a
 * sorted set that is pruned as it is written. One record per host, not one key per worker:
 * a host of 1,000 slots renews its leases every pool tick, and 1,000 keys written and read
 * back each second cost that host about twice the CPU of everything else its 1,000 active
 * runs need (bench workload h).
 */
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
    for (const [hostId, own] of byHost(leases, (l) => l.hostId)) {
      batch.set(this.keys.workerLeases(hostId), JSON.stringify(own), "PX", ttlMs);
      batch.zadd(this.keys.workerLeaseHosts, Math.max(...own.map((l) => l.expiresAt)), hostId);
    }
    batch.zremrangebyscore(this.keys.workerLeaseHosts, "-inf", now);
    await batch.exec();
  }

  async list(): Promise<WorkerLease[]> {
    const hosts = await this.redis.zrangebyscore(this.keys.workerLeaseHosts, Date.now(), "+inf");
    if (hosts.length === 0) return [];
    const records = await this.redis.mget(hosts.map((h) => this.keys.workerLeases(h)));
    return records.flatMap((r) => (r === null ? [] : (JSON.parse(r) as WorkerLease[])));
  }

  /**
   * Removes workers from their hosts' records (a worker id names its host). Only the host
   * itself writes its record, so this read and rewrite races with nothing but that host's
   * own next publish, which lists its current workers anyway.
   */
  async remove(workerIds: readonly string[]): Promise<void> {
    for (const [hostId, gone] of byHost(workerIds, hostOfWorker)) {
      const key = this.keys.workerLeases(hostId);
      const record = await this.redis.get(key);
      if (record === null) continue;
      const kept = (JSON.parse(record) as WorkerLease[]).filter((l) => !gone.includes(l.workerId));
      if (kept.length === 0)
        await this.redis.multi().del(key).zrem(this.keys.workerLeaseHosts, hostId).exec();
      else await this.redis.set(key, JSON.stringify(kept), "KEEPTTL");
    }
  }
}
