// @module-tag system

import { modelLimiterContract } from "@oah/coordination/model-limiter-contract";
import { createTestRedis, newTestPrefix, startRedisCluster, type TestRedisCluster } from "@oah/testing";
import { Cluster, Redis } from "ioredis";
import { afterAll } from "vitest";
import { RedisModelLimiter } from "../src";

// Two connections: two hosts sharing the capacity.
modelLimiterContract("Redis", async () => {
  const t = await createTestRedis();
  const connections = [new Redis(t.url), new Redis(t.url)];
  return {
    hosts: [
      new RedisModelLimiter(connections[0] as Redis, t.prefix),
      new RedisModelLimiter(connections[1] as Redis, t.prefix),
    ],
    dispose: async () => {
      for (const c of connections) c.disconnect();
      await t.dispose();
    },
  };
});

let cluster: Promise<TestRedisCluster> | undefined;
afterAll(async () => (await cluster)?.stop());
modelLimiterContract("Redis Cluster", async () => {
  cluster ??= startRedisCluster();
  const { nodes } = await cluster;
  const prefix = newTestPrefix();
  const connections = [new Cluster(nodes), new Cluster(nodes)];
  return {
    hosts: [
      new RedisModelLimiter(connections[0] as Cluster, prefix),
      new RedisModelLimiter(connections[1] as Cluster, prefix),
    ],
    dispose: async () => {
      for (const c of connections) c.disconnect();
    },
  };
});
