import { Cluster, type Redis } from "ioredis";

/**
 * A connection to Redis: one server, or a Redis Cluster. Every key oah keeps carries
 * the hash tag `{prefix}` (keys.ts), so all of them live in one slot: each script,
 * transaction and multi-key read runs on the one node that owns it.
 */
export type RedisClient = Redis | Cluster;

/**
 * A second connection of the same kind, for pub/sub: it waits out outages (an offline
 * queue, retries for ever) and restores its subscriptions by itself after a reconnection;
 * it is never auto-pipelined. On a cluster, PUBLISH reaches every node's subscribers.
 */
export function subscriberOf(client: RedisClient): RedisClient {
  if (client instanceof Cluster) {
    return client.duplicate(undefined, {
      enableAutoPipelining: false,
      lazyConnect: false,
      enableOfflineQueue: true,
      redisOptions: { ...client.options.redisOptions, maxRetriesPerRequest: null },
    });
  }
  return client.duplicate({
    enableAutoPipelining: false,
    lazyConnect: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
  });
}
