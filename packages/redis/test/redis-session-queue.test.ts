// @module-tag system

import { sessionQueueContract } from "@oah/coordination/queue-contract";
import type { FairShare, QueueEntry } from "@oah/core";
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
async function harness(
  redis: Redis | Cluster,
  prefix: string,
  lockTtlMs: number,
  fairShare: FairShare | undefined,
  cleanUp = async () => {},
) {
  const queue = new RedisSessionQueue({ redis, prefix, lockTtlMs, fairShare });
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

sessionQueueContract("Redis", async (lockTtlMs, fairShare) => {
  const t = await createTestRedis();
  return harness(new Redis(t.url), t.prefix, lockTtlMs, fairShare, () => t.dispose());
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

  const entry = (sessionId: string, queueSeq: number, workspaceId = "default"): QueueEntry => ({
    runId: `run-${sessionId}-${queueSeq}`,
    sessionId,
    workspaceId,
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

  it("finds a ready entry left with no runs, counts it stale, and drops it (docs/spec.md §7, stale_ready)", async () => {
    await queue.enqueue([entry("a", 1), entry("b", 1)]);
    // Dirt: the session's runs gone from under its ready entry.
    await redis.del(redisKeys(t.prefix).queue("a"));
    expect((await queue.survey(10)).emptyReady).toEqual(["a"]);
    expect(await queue.pressure()).toMatchObject({ staleReadySessionCount: 1 });
    expect(await queue.dropEmptyReady(["a", "b"])).toEqual(["a"]);
    expect(await queue.survey(10)).toEqual({ locked: [], emptyReady: [] });
    expect(await queue.pressure()).toMatchObject({ staleReadySessionCount: 0, readySessionCount: 1 });
    expect((await queue.claim())?.sessionId).toBe("b");
  });

  it("keeps the fair share's keys under the hash tag too, and only the configuration once drained", async () => {
    const k = redisKeys(t.prefix);
    const fair = new RedisSessionQueue({
      redis,
      prefix: t.prefix,
      lockTtlMs: 5_000,
      fairShare: { weights: { A: 2 }, caps: { A: 1 } },
    });
    await fair.enqueue([entry("a", 1, "A"), entry("a", 2, "A"), entry("c", 1, "A"), entry("b", 1, "B")]);
    const held = [await fair.claim(), await fair.claim()];
    expect(held.map((c) => c?.workspaceId)).toEqual(["A", "B"]);
    const inFlight = await t.keys();
    expect(inFlight.every((key) => key.startsWith(`{${t.prefix}}:`))).toBe(true);
    expect(inFlight).toEqual(
      expect.arrayContaining([
        k.workspaceLane("A", "normal"),
        k.sessionWorkspace,
        k.workspacesAsleep,
        k.heldLocks("A"),
        k.workspaces,
        k.passes,
      ]),
    );
    const configuration = inFlight.filter((key) => key.startsWith(k.fairShare("")));
    expect(configuration).toHaveLength(1);
    for (const claim of held) await fair.release(claim!);
    for (let claim = await fair.claim(); claim; claim = await fair.claim()) await fair.release(claim);
    expect(await fair.size()).toBe(0);
    expect((await t.keys()).sort()).toEqual([...configuration, k.fence].sort());
  });

  it("hides locked ready entries until their lock expires and drops empty ones, counting both in pressure", async () => {
    const k = redisKeys(t.prefix);
    await queue.enqueue([entry("fresh", 1)]);
    // Dirty entries older than the fresh session, in the lanes of its workspace too: one
    // locked by someone, one with no runs left.
    await redis.zadd(k.readyNormal, "1", "locked", "2", "empty");
    await redis.zadd(k.workspaceLane("default", "normal"), "1", "locked", "2", "empty");
    await redis.hset(k.sessionWorkspace, "locked", "default", "empty", "default");
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

  it("frees a capped workspace's slot when its holder's lock lapses, with no release", async () => {
    const short = new RedisSessionQueue({
      redis,
      prefix: t.prefix,
      lockTtlMs: 300,
      fairShare: { weights: {}, caps: { A: 1 } },
    });
    await short.enqueue([entry("a1", 1, "A"), entry("a2", 1, "A"), entry("b1", 1, "B")]);
    const first = await short.claim();
    expect(first?.sessionId).toBe("a1");
    expect((await short.claim())?.sessionId).toBe("b1");
    expect(await short.claim()).toBeNull();
    await new Promise((r) => setTimeout(r, 350));
    expect((await short.claim())?.sessionId).toBe("a2");
    // The dead holder's late release frees nothing that is not its own.
    expect(await short.release(first!)).toBe(false);
    expect(await redis.zrange(redisKeys(t.prefix).heldLocks("A"), "0", "-1")).toEqual(["a2"]);
    await short.close();
  });

  it("runs every call with its own host's fair share, stored again after a flush", async () => {
    const k = redisKeys(t.prefix);
    const capped = new RedisSessionQueue({
      redis,
      prefix: t.prefix,
      lockTtlMs: 5_000,
      fairShare: { weights: { A: 0.5 }, caps: { A: 1 } },
    });
    const configuration = async () => (await t.keys()).filter((key) => key.startsWith(k.fairShare("")));
    await capped.enqueue([entry("a1", 1, "A"), entry("a2", 1, "A")]);
    const [stored] = await configuration();
    expect(await redis.hgetall(stored!)).toMatchObject({ "weight:A": "0.5", "cap:A": "1" });
    expect((await capped.claim())?.sessionId).toBe("a1");
    expect(await capped.claim()).toBeNull();
    // A host with no fair share configured applies its own, equal weights and no caps
    // (stored nowhere), to each workspace from the next change of its sessions on.
    await queue.enqueue([entry("a3", 1, "A")]);
    expect(await configuration()).toEqual([stored]);
    expect((await queue.claim())?.sessionId).toBe("a2");
    // After a flush, the configuration comes back with the next call that needs it.
    await redis.del(...(await t.keys()));
    await capped.enqueue([entry("a4", 1, "A"), entry("a5", 1, "A")]);
    expect(await redis.hgetall(stored!)).toMatchObject({ "cap:A": "1" });
    expect((await capped.claim())?.sessionId).toBe("a4");
    expect(await capped.claim()).toBeNull();
    await capped.close();
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
sessionQueueContract("Redis Cluster", async (lockTtlMs, fairShare) => {
  cluster ??= startRedisCluster();
  return harness(new Cluster((await cluster).nodes), newTestPrefix(), lockTtlMs, fairShare);
});
