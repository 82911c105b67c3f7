import { createTestRedis, type TestRedis } from "@oah/testing";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RedisLeaderLease } from "../src";

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
