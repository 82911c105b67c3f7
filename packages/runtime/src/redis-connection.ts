import { redactUrl } from "@oah/config";
import { Redis } from "ioredis";

/**
 * The command connection: commands fail at once while Redis is away (no offline
 * queue), so that scheduling pauses instead of piling up, and the API keeps
 * answering from the store. It reconnects by itself. Subscribers are duplicates
 * of it that turn auto-pipelining off again.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // Commands issued in the same turn of the event loop (the claims and releases of
    // many workers) go out in one write: one round trip and one syscall, not one each.
    enableAutoPipelining: true,
  });
  // Connection errors are reported by the commands that fail; the event itself must not crash the process.
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${redactUrl(url)}: ${(error as Error).message}`);
  }
  return redis;
}
