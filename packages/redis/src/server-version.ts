import { connectRedis, type RedisTarget } from "./connect";

/** The version the Redis of `target` reports (INFO server's redis_version); throws when it does not answer. */
export async function redisVersion(target: RedisTarget): Promise<string> {
  const redis = await connectRedis(target);
  try {
    const info = await redis.info("server");
    return /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown";
  } finally {
    redis.disconnect();
  }
}
