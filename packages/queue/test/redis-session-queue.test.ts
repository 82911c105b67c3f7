import { createTestRedis } from "@oah/testing";
import { Redis } from "ioredis";
import { RedisSessionQueue } from "../src";
import { LOCK_TTL_MS, sessionQueueContract } from "./session-queue.contract";

sessionQueueContract("Redis", async () => {
  const t = await createTestRedis();
  const redis = new Redis(t.url);
  const queue = new RedisSessionQueue({ redis, prefix: t.prefix, lockTtlMs: LOCK_TTL_MS });
  return {
    queue,
    advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    dispose: async () => {
      await queue.close();
      redis.disconnect();
      await t.dispose();
    },
  };
});
