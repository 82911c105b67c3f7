import { randomBytes } from "node:crypto";
import type { MaintenanceLock } from "@oah/coordination";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";
import { defineScripts, type ScriptedRedis } from "../scripts";

/** Each task's lock as one key holding its holder's token, with the lock's TTL. */
export class RedisMaintenanceLock implements MaintenanceLock {
  private readonly keys: RedisKeys;
  private readonly redis: ScriptedRedis;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = defineScripts(redis);
    this.keys = redisKeys(prefix);
  }

  async tryAcquire(task: string, ttlMs: number): Promise<string | null> {
    const token = randomBytes(8).toString("hex");
    const taken = await this.redis.set(this.keys.maintenanceLock(task), token, "PX", ttlMs, "NX");
    return taken === "OK" ? token : null;
  }

  async release(task: string, token: string): Promise<void> {
    await this.redis.oahReleaseHeld(this.keys.maintenanceLock(task), token);
  }
}
