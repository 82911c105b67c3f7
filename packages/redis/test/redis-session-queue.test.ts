import type { QueueEntry } from "@oah/core";
import { sessionQueueContract } from "@oah/queue/contract";
import {
  createTestRedis,
  newTestPrefix,
  startRedisCluster,
  type TestRedis,
  type TestRedisCluster,
} from "@oah/testing";
import { Cluster, Redis } from "ioredis";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { RedisSessionQueue, redisKeys } from "../src";

/** The contract's harness over a connection of either kind, a prefix of its own on it. */
async function harness(redis: Redis | Cluster, prefix: string, lockTtlMs: number, cleanUp = async () => {}) {
  const queue = new RedisSessionQueue({ redis, prefix, lockTtlMs });
  await queue.whenSubscribed();
  return {
    queue,
    advance: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    dispose: async () => {
      await queue.close();
      redis.disconnect();
      await cleanUp();
    },
  };
}

sessionQueueContract("Redis", async (lockTtlMs) => {
  const t = await createTestRedis();
  return harness(new Redis(t.url), t.prefix, lockTtlMs, () => t.dispose());
});

describe("Redis session queue specifics", () => {
  let t: TestRedis;
  let redis: Redis;
  let queue: RedisSessionQueue;
  beforeEach(async () => {
    t = await createTestRedis();
    redis = new Redis(t.url);
    queue = new RedisSessionQueue({ redis, prefix: t.prefix, lockTtlMs: 5_000 });
    await queue.whenSubscribed();
  });
  afterEach(async () => {
    await queue.close();
    redis.disconnect();
    await t.dispose();
  });

  const entry = (sessionId: string, queueSeq: number): QueueEntry => ({
    runId: `run-${sessionId}-${queueSeq}`,
    sessionId,
    workspaceId: "default",
    queueSeq,
    priority: "normal",
    enqueuedAt: Date.now(),
  });

  it("keeps every key under one hash tag, and leaves nothing of a drained session", async () => {
    await queue.enqueue([entry("a", 1), entry("a", 2)]);
    for (let i = 0; i < 2; i++) {
      const claim = await queue.claim();
      await queue.release(claim!);
    }
    const keys = await t.keys();
    expect(keys.every((k) => k.startsWith(`{${t.prefix}}:`))).toBe(true);
    expect(keys).toEqual([`{${t.prefix}}:fence`]);
  });

  it("hides locked ready entries until their lock expires and drops empty ones, counting both in pressure", async () => {
    const k = redisKeys(t.prefix);
    await queue.enqueue([entry("fresh", 1)]);
    // Dirty entries older than the fresh session: one locked by someone, one with no runs left.
    await redis.zadd(k.readyNormal, "1", "locked", "2", "empty");
    await redis.zadd(k.queue("locked"), "1", "run-locked-1");
    await redis.hset(k.entries, "run-locked-1", JSON.stringify(entry("locked", 1)));
    await redis.set(k.lock("locked"), "someone", "PX", 5_000);
    expect(await queue.pressure()).toMatchObject({
      readyQueueDepth: 3,
      lockedReadySessionCount: 1,
      staleReadySessionCount: 1,
      readySessionCount: 1,
    });
    const claim = await queue.claim();
    expect(claim?.sessionId).toBe("fresh");
    const hidden = await redis.zrange(k.readyNormal, "0", "-1", "WITHSCORES");
    expect(hidden.filter((_, i) => i % 2 === 0).sort()).toEqual(["fresh", "locked"]);
    for (let i = 1; i < hidden.length; i += 2) expect(Number(hidden[i])).toBeGreaterThan(Date.now());
    expect(await queue.pressure()).toMatchObject({ lockedReadySessionCount: 2, readySessionCount: 0 });
    // The lock holder's release makes its session ready at once.
    expect(await queue.release({ sessionId: "locked", token: "someone", workspaceId: "default" })).toBe(true);
    expect((await queue.claim())?.sessionId).toBe("locked");
  });

  it("makes a session whose holder died claimable again when its lock expires, with no release", async () => {
    const short = new RedisSessionQueue({ redis, prefix: t.prefix, lockTtlMs: 300 });
    await short.enqueue([entry("orphan", 1), entry("orphan", 2)]);
    const first = await short.claim();
    expect(first?.entry.queueSeq).toBe(1);
    expect(await short.claim()).toBeNull();
    await new Promise((r) => setTimeout(r, 350));
    const second = await short.claim();
    expect(second?.entry.queueSeq).toBe(2);
    await short.close();
  });

  it("survives a flush: a vanished lock does not stop its holder, and tokens never repeat", async () => {
    await queue.markLive();
    await queue.enqueue([entry("f", 1)]);
    const before = await queue.claim();
    // What a flush does to this queue (FLUSHALL itself would hit the other suites sharing this server).
    await redis.del(...(await t.keys()));
    expect(await queue.markLive()).toBe(true);
    // The lock is gone, not taken by another: the holder is not told to stop.
    expect(await queue.renewLocks([before!])).toEqual([]);
    expect(await redis.get(redisKeys(t.prefix).lock("f"))).toBeNull();
    expect(await queue.release(before!)).toBe(false);
    await queue.enqueue([entry("g", 1)]);
    const after = await queue.claim();
    expect(after!.token.split("-")[0]).toBe(before!.token.split("-")[0]);
    expect(after!.token).not.toBe(before!.token);
  });

  it("wakes idle workers of every host, even when another host is frozen", async () => {
    const other = new Redis(t.url);
    const frozenHost = new RedisSessionQueue({ redis: other, prefix: t.prefix, lockTtlMs: 5_000 });
    await frozenHost.whenSubscribed();
    // The frozen host has nobody waiting and never claims: announcements must still reach this one.
    const controller = new AbortController();
    const waiting = queue.waitForWork(controller.signal);
    await queue.enqueue([entry("announced", 1)]);
    await waiting;
    expect((await queue.claim())?.sessionId).toBe("announced");
    await frozenHost.close();
    other.disconnect();
  });

  it("announces, and lets claim, every session made ready within the same millisecond", async () => {
    const listener = new Redis(t.url);
    let announced = 0;
    listener.on("message", () => announced++);
    await listener.subscribe(redisKeys(t.prefix).wakeChannel);
    // One script call: all three sessions become ready at the same server millisecond.
    await queue.enqueue([entry("s1", 1), entry("s2", 1), entry("s3", 1)]);
    const claims = await Promise.all([queue.claim(), queue.claim(), queue.claim()]);
    expect(claims.map((c) => c?.sessionId)).toEqual(["s1", "s2", "s3"]);
    await new Promise((r) => setTimeout(r, 50));
    expect(announced).toBe(3);
    listener.disconnect();
  });

  it("wakes an idle worker within milliseconds of a run becoming claimable", async () => {
    const controller = new AbortController();
    const waiting = queue.waitForWork(controller.signal).then(() => performance.now());
    await new Promise((r) => setTimeout(r, 50));
    const enqueued = performance.now();
    await queue.enqueue([entry("wake", 1)]);
    const woke = await waiting;
    expect(woke - enqueued).toBeLessThan(100);
    controller.abort();
  });
});

// The same contract on a real three-node Redis Cluster: every key of a prefix in one slot.
let cluster: Promise<TestRedisCluster> | undefined;
afterAll(async () => (await cluster)?.stop());
sessionQueueContract("Redis Cluster", async (lockTtlMs) => {
  cluster ??= startRedisCluster();
  return harness(new Cluster((await cluster).nodes), newTestPrefix(), lockTtlMs);
});
