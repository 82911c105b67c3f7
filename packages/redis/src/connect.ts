import { type OahConfig, redactUrl } from "@oah/config";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { RedisClient } from "./client";

/** Which Redis: one server by URL, or a cluster by its nodes. */
export type RedisTarget = { url: string } | { clusterNodes: { host: string; port: number }[] };

/** The Redis the configuration names: OAH_REDIS_URL, else OAH_REDIS_CLUSTER_NODES; null for none. */
export function redisTargetOf(config: Pick<OahConfig, "redisUrl" | "redisClusterNodes">): RedisTarget | null {
  if (config.redisUrl !== undefined) return { url: config.redisUrl };
  if (config.redisClusterNodes !== undefined) return { clusterNodes: config.redisClusterNodes };
  return null;
}

const COMMAND_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 5_000,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
};

/**
 * The command connection: commands fail at once while Redis is away (no offline
 * queue), so that scheduling pauses instead of piling up, and the API keeps
 * answering from the store. It reconnects by itself. Subscribers are duplicates
 * of it that turn auto-pipelining off again (subscriberOf).
 */
export async function connectRedis(target: RedisTarget): Promise<RedisClient> {
  // Commands issued in the same turn of the event loop (the claims and releases of
  // many workers) go out in one write: one round trip and one syscall, not one each.
  const redis: RedisClient =
    "url" in target
      ? new Redis(target.url, { ...COMMAND_OPTIONS, lazyConnect: true, enableAutoPipelining: true })
      : new Cluster(target.clusterNodes, {
          lazyConnect: true,
          enableAutoPipelining: true,
          enableOfflineQueue: false,
          clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
          redisOptions: COMMAND_OPTIONS,
        });
  const where =
    "url" in target
      ? redactUrl(target.url)
      : `the cluster of ${target.clusterNodes.map((n) => `${n.host}:${n.port}`).join(", ")}`;
  // Connection errors are reported by the commands that fail; the event itself must not crash the process.
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${where}: ${(error as Error).message}`);
  }
  return redis;
}
