import { randomBytes } from "node:crypto";
import type { RecoveryLock } from "@oah/engine";
import type { RedisClient } from "../client";
import { redisKeys } from "../keys";
import { defineScripts, type ScriptedRedis } from "../scripts";

export class RedisRecoveryLock implements RecoveryLock {
  private readonly key: string;
  private readonly redis: ScriptedRedis;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = defineScripts(redis);
    this.key = redisKeys(prefix).recoveryLock;
  }

  async tryAcquire(ttlMs: number): Promise<string | null> {
    const token = randomBytes(8).toString("hex");
    return (await this.redis.set(this.key, token, "PX", ttlMs, "NX")) === "OK" ? token : null;
  }

  async release(token: string): Promise<void> {
    // A scan outliving the lock's TTL must not free the lock another host took since.
    await this.redis.oahReleaseHeld(this.key, token);
  }
}
