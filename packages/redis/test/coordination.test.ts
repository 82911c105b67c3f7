// @module-tag system

import type { ControllerReport, PoolReport, Rollout, WorkerLease } from "@oah/contract";
import { type EventNote, isHealthyLease, type RunSignal } from "@oah/coordination";
import { createTestRedis, type TestRedis, waitFor } from "@oah/testing";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  RedisControllerChannel,
  RedisEventBus,
  RedisHostOrders,
  RedisLeaderLease,
  RedisMaintenanceLock,
  RedisPoolBoard,
  RedisRunSignalBus,
  RedisWorkerRegistry,
} from "../src";

let t: TestRedis;
let redis: Redis;
beforeEach(async () => {
  t = await createTestRedis();
  redis = new Redis(t.url);
});
afterEach(async () => {
  redis.disconnect();
  await t.dispose();
});

function lease(workerId: string, now: number, over: Partial<WorkerLease> = {}): WorkerLease {
  return {
    workerId,
    hostId: "host-a",
    processKind: "standalone",
    state: "idle",
    sessionId: null,
    runId: null,
    lastSeenAt: now,
    expiresAt: now + 300,
    intervalMs: 100,
    hostState: "active",
    cpuPercent: 1.5,
    rssMb: 80,
    ...over,
  };
}

describe("worker registry", () => {
  it("lists leases until they lapse, and prunes lapsed ones from its index", async () => {
    const registry = new RedisWorkerRegistry(redis, t.prefix);
    const now = Date.now();
    await registry.publish(
      [lease("host-a/w1", now), lease("host-a/w2", now, { state: "busy", sessionId: "s", runId: "r" })],
      300,
    );
    expect((await registry.list()).map((l) => [l.workerId, l.state])).toEqual([
      ["host-a/w1", "idle"],
      ["host-a/w2", "busy"],
    ]);
    await registry.remove(["host-a/w1"]);
    expect((await registry.list()).map((l) => l.workerId)).toEqual(["host-a/w2"]);
    await new Promise((r) => setTimeout(r, 350));
    expect(await registry.list()).toEqual([]);
    await registry.publish([], 300);
    expect(await redis.zcard(`{${t.prefix}}:worker-lease-hosts`)).toBe(0);
  });

  it("keeps one record per host, whatever its number of workers, and removes a worker from its own host's", async () => {
    const registry = new RedisWorkerRegistry(redis, t.prefix);
    const now = Date.now();
    const slots = Array.from({ length: 500 }, (_, n) =>
      lease(`host-a/w${n}`, now, { expiresAt: now + 5_000 }),
    );
    await registry.publish(slots, 5_000);
    await registry.publish([lease("host-b/w0", now, { hostId: "host-b", expiresAt: now + 5_000 })], 5_000);
    expect(await redis.keys(`{${t.prefix}}:worker-leases:*`)).toHaveLength(2);
    expect(await registry.list()).toHaveLength(501);
    await registry.remove(["host-a/w7", "host-b/w0"]);
    const left = (await registry.list()).map((l) => l.workerId);
    expect(left).toHaveLength(499);
    expect(left).not.toContain("host-a/w7");
    expect(left).not.toContain("host-b/w0");
    // A host's record keeps its lapse: a removal does not make it live longer.
    expect(await redis.pttl(`{${t.prefix}}:worker-leases:host-a`)).toBeGreaterThan(0);
    expect(await redis.exists(`{${t.prefix}}:worker-leases:host-b`)).toBe(0);
  });

  it("tells healthy leases from late ones", () => {
    const now = Date.now();
    expect(isHealthyLease(lease("w", now - 150), now)).toBe(true);
    expect(isHealthyLease(lease("w", now - 250), now)).toBe(false);
  });
});

describe("maintenance lock", () => {
  it("is held by one host at a time and freed only by its own token", async () => {
    const a = new RedisMaintenanceLock(redis, t.prefix);
    const b = new RedisMaintenanceLock(redis, t.prefix);
    const token = await a.tryAcquire("stale-runs", 5_000);
    expect(token).toEqual(expect.any(String));
    expect(await b.tryAcquire("stale-runs", 5_000)).toBeNull();
    await b.release("stale-runs", "not-the-token");
    expect(await b.tryAcquire("stale-runs", 5_000)).toBeNull();
    await a.release("stale-runs", token!);
    expect(await b.tryAcquire("stale-runs", 5_000)).toEqual(expect.any(String));
  });

  it("is one lock per task: holding one task's leaves the others free", async () => {
    const a = new RedisMaintenanceLock(redis, t.prefix);
    const b = new RedisMaintenanceLock(redis, t.prefix);
    expect(await a.tryAcquire("stale-runs", 5_000)).toEqual(expect.any(String));
    expect(await b.tryAcquire("queue-reconcile", 5_000)).toEqual(expect.any(String));
    expect(await b.tryAcquire("stale-runs", 5_000)).toBeNull();
  });

  it("lapses after its TTL, so that a host killed while it held the lock holds nobody back", async () => {
    const a = new RedisMaintenanceLock(redis, t.prefix);
    expect(await a.tryAcquire("stale-runs", 100)).toEqual(expect.any(String));
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await new RedisMaintenanceLock(redis, t.prefix).tryAcquire("stale-runs", 5_000)).toEqual(
      expect.any(String),
    );
  });
});

describe("pool board", () => {
  it("keeps live hosts' reports and history until their TTL", async () => {
    const board = new RedisPoolBoard(redis, t.prefix);
    const report = {
      snapshot: { hostId: "host-a", desired: 3 },
      recentDecisions: [],
    } as unknown as PoolReport;
    await board.publish(report, 300);
    await board.publishHistory("host-a", [{ at: 1 } as never], 300);
    expect(await board.reports()).toEqual([report]);
    expect(await board.history("host-a")).toEqual([{ at: 1 }]);
    await new Promise((r) => setTimeout(r, 350));
    expect(await board.reports()).toEqual([]);
  });
});

describe("run signal bus", () => {
  it("carries a signal to every subscribed host", async () => {
    const here = new RedisRunSignalBus(redis, t.prefix);
    const other = new Redis(t.url);
    const there = new RedisRunSignalBus(other, t.prefix);
    const received: RunSignal[] = [];
    there.subscribe((signal) => received.push(signal));
    await there.ready();
    await here.publish({ kind: "cancel", runId: "run_1" });
    await here.publish({ kind: "tool_result", runId: "run_2" });
    await waitFor("the signals", async () => received.length === 2, 2_000);
    expect(received).toEqual([
      { kind: "cancel", runId: "run_1" },
      { kind: "tool_result", runId: "run_2" },
    ]);
    await here.close();
    await there.close();
    other.disconnect();
  });
});

describe("event bus", () => {
  it("carries the sessions written in one turn as one note, and a live event after the notes before it", async () => {
    const here = new RedisEventBus(redis, t.prefix);
    const other = new Redis(t.url);
    const there = new RedisEventBus(other, t.prefix);
    const received: EventNote[] = [];
    there.subscribe((note) => received.push(note));
    await there.ready();
    here.publish({ kind: "written", sessionIds: ["a", "b"] });
    here.publish({ kind: "written", sessionIds: ["b", "c"] });
    await waitFor("the first note", async () => received.length === 1, 2_000);
    const delta = {
      sessionId: "d",
      runId: "run_1",
      type: "model.delta" as const,
      at: "t",
      data: { text: "x" },
    };
    here.publish({ kind: "written", sessionIds: ["d"] });
    here.publish({ kind: "live", event: delta });
    await waitFor("the notes", async () => received.length === 3, 2_000);
    expect(received).toEqual([
      { kind: "written", sessionIds: ["a", "b", "c"] },
      { kind: "written", sessionIds: ["d"] },
      { kind: "live", event: delta },
    ]);
    // Not one of its notes: dropped.
    await redis.publish(`{${t.prefix}}:events`, "not json");
    await here.close();
    await there.close();
    other.disconnect();
  });
});

const TTL = 300;
const candidate = (id: string, ttl = TTL) => new RedisLeaderLease(redis, t.prefix, id, ttl);

describe("the controllers' leader lease", () => {
  it("lets exactly one of many racing candidates lead", async () => {
    const candidates = Array.from({ length: 10 }, (_, i) => candidate(`c${i}`));
    const tokens = await Promise.all(candidates.map((c) => c.tryLead()));
    expect(tokens.filter((token) => token !== null)).toEqual([1]);
    const leaderIndex = tokens.indexOf(1);
    expect(await candidates[0]!.leader()).toEqual({ leaderId: `c${leaderIndex}`, token: 1 });
  });

  it("keeps its token while it renews; a standby waits", async () => {
    const a = candidate("a");
    const b = candidate("b");
    expect(await a.tryLead()).toBe(1);
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, TTL / 3));
      expect(await a.tryLead()).toBe(1);
      expect(await b.tryLead()).toBeNull();
    }
    expect(await a.stillLeads(1)).toBe(true);
  });

  it("is taken over within 2 × TTL of a leader that stops renewing, which is then refused", async () => {
    // A longer lease here: the bound is what is checked, on a machine that may be busy.
    const ttl = 1_000;
    const frozen = candidate("frozen", ttl);
    const standby = candidate("standby", ttl);
    expect(await frozen.tryLead()).toBe(1);
    const stopped = Date.now();
    let token: number | null = null;
    while (token === null) {
      await new Promise((r) => setTimeout(r, 100));
      token = await standby.tryLead();
    }
    expect(Date.now() - stopped).toBeLessThan(2 * ttl);
    expect(token).toBe(2);
    // Thawed, the deposed leader neither acts nor takes the lease back.
    expect(await frozen.stillLeads(1)).toBe(false);
    expect(await frozen.tryLead()).toBeNull();
    expect(await standby.stillLeads(2)).toBe(true);
  });

  it("hands over at once when the leader resigns", async () => {
    const a = candidate("a");
    const b = candidate("b");
    await a.tryLead();
    await a.resign();
    expect(await b.tryLead()).toBe(2);
    expect(await a.stillLeads(1)).toBe(false);
  });
});

const report = (leaderId: string): ControllerReport => ({
  leaderId,
  at: Date.now(),
  target: "none",
  desiredReplicas: 2,
  actualReplicas: 1,
  decisions: [],
  history: [],
});

describe("the controllers' fenced writes", () => {
  it("publish the report and give orders only under the current lease; a deposed leader's are refused", async () => {
    const channel = new RedisControllerChannel(redis, t.prefix);
    const orders = new RedisHostOrders(redis, t.prefix);
    const old = candidate("old");
    const token = (await old.tryLead())!;
    expect(await channel.publishReport(old.fenceOf(token), report("old"))).toBe(true);
    expect(await orders.giveAsLeader(old.fenceOf(token), "host-1", "drain")).toBe(true);
    expect(await channel.report()).toMatchObject({ leaderId: "old", desiredReplicas: 2 });
    expect(await orders.orderOf("host-1")).toBe("drain");

    // The lease lapses and another takes it: the old leader's report is no one's, its writes change nothing.
    await new Promise((r) => setTimeout(r, TTL + 50));
    expect(await channel.report()).toBeNull();
    const next = candidate("next");
    const nextToken = (await next.tryLead())!;
    expect(await orders.giveAsLeader(old.fenceOf(token), "host-1", null)).toBe(false);
    expect(await channel.publishReport(old.fenceOf(token), report("old"))).toBe(false);
    expect(await orders.orderOf("host-1")).toBe("drain");
    expect(await orders.giveAsLeader(next.fenceOf(nextToken), "host-1", null)).toBe(true);
    expect(await orders.orderOf("host-1")).toBeNull();
    // An operator's order (through the API) is not fenced.
    await orders.give("host-2", "cordon");
    expect(await orders.orderOf("host-2")).toBe("cordon");
  });

  it("queues rollouts in the order asked; a finished one leaves the queue but stays readable", async () => {
    const channel = new RedisControllerChannel(redis, t.prefix);
    const leader = candidate("leader");
    const fence = leader.fenceOf((await leader.tryLead())!);
    const rollout = (rolloutId: string): Rollout => ({
      rolloutId,
      state: "pending",
      requestedBy: null,
      requestedAt: Date.now(),
      startedAt: null,
      finishedAt: null,
      steps: [],
      replaced: 0,
      total: 0,
      message: null,
    });
    await channel.requestRollout(rollout("r1"));
    await channel.requestRollout(rollout("r2"));
    expect((await channel.currentRollout())?.rolloutId).toBe("r1");
    expect(await channel.saveRollout(fence, { ...rollout("r1"), state: "done" })).toBe(true);
    expect((await channel.currentRollout())?.rolloutId).toBe("r2");
    expect((await channel.rollout("r1"))?.state).toBe("done");
  });
});
