import type { HostLeases } from "@oah/coordination";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";

/** A host's lease as one key holding the JSON list of its runs, with the lease's TTL. */
export class RedisHostLeases implements HostLeases {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  async renew(hostId: string, runIds: readonly string[], ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.hostLease(hostId), JSON.stringify(runIds), "PX", ttlMs);
  }

  async runsOf(hostIds: readonly string[]): Promise<Map<string, ReadonlySet<string>>> {
    const live = new Map<string, ReadonlySet<string>>();
    if (hostIds.length === 0) return live;
    const values = await this.redis.mget(hostIds.map((id) => this.keys.hostLease(id)));
    hostIds.forEach((hostId, i) => {
      const value = values[i];
      if (value != null) live.set(hostId, new Set(JSON.parse(value) as string[]));
    });
    return live;
  }

  async remove(hostId: string): Promise<void> {
    await this.redis.del(this.keys.hostLease(hostId));
  }
}
