import { randomBytes } from "node:crypto";
import { type RedisClient, redisKeys } from "@oah/queue";
import type { RecoveryLock } from "../coordination/recovery-lock";

// Deletes the lock only for the token that holds it, so that a scan outliving its
// TTL never frees another host's lock.
const RELEASE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

export class RedisRecoveryLock implements RecoveryLock {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.key = redisKeys(prefix).recoveryLock;
  }

  async tryAcquire(ttlMs: number): Promise<string | null> {
    const token = randomBytes(8).toString("hex");
    return (await this.redis.set(this.key, token, "PX", ttlMs, "NX")) === "OK" ? token : null;
  }

  async release(token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, token);
  }
}
