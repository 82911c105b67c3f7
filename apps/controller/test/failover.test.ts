// @module-tag system

import { childrenOf, type OahProcess, submitBurst } from "@oah/testing";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "./support";

const LEASE_TTL_MS = 2_000;

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.dispose();
  fleet = undefined;
});

/** The leading controller and the standby, once exactly one of the two leads. */
async function leaderAndStandby(f: Fleet): Promise<[OahProcess, OahProcess]> {
  let roles: boolean[] = [];
  await expect
    .poll(
      async () => {
        roles = await Promise.all(f.controllers.map(async (c) => (await f.snapshot(c)).leader));
        return roles.filter(Boolean).length;
      },
      { timeout: 10_000 },
    )
    .toBe(1);
  const leader = f.controllers[roles.indexOf(true)]!;
  return [leader, f.controllers.find((c) => c !== leader)!];
}

describe("oah-controller leadership", () => {
  it("after kill -9 of the leader, the standby leads within 2 × the lease TTL and adopts its sandbox", async () => {
    fleet = await startFleet(2, { OAH_CONTROLLER_MIN_REPLICAS: "1", OAH_CONTROLLER_MAX_REPLICAS: "1" });
    const f = fleet;
    const [leader, standby] = await leaderAndStandby(f);
    await expect.poll(async () => (await f.pool()).hosts.length, { timeout: 20_000 }).toBe(1);
    const [sandbox] = f.sandboxPids();

    await leader.stop("SIGKILL");
    await expect
      .poll(async () => (await f.snapshot(standby)).leader, { timeout: 2 * LEASE_TTL_MS })
      .toBe(true);
    const { leaderId } = await f.snapshot(standby);
    await expect.poll(async () => (await f.pool()).controller?.leaderId, { timeout: 5_000 }).toBe(leaderId);
    // The sandbox the dead leader started still serves, counted by the new leader: none is added.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(f.sandboxPids()).toEqual([sandbox]);
    expect(childrenOf(standby.child.pid!)).toEqual([]);
  });

  it("a leader frozen past its lease (SIGSTOP) and thawed (SIGCONT) scales nothing and writes nothing", async () => {
    fleet = await startFleet(2, {
      OAH_CONTROLLER_MIN_REPLICAS: "1",
      OAH_CONTROLLER_MAX_REPLICAS: "3",
      OAH_CONTROLLER_SANDBOX_SLOTS: "2",
    });
    const f = fleet;
    const [frozen, standby] = await leaderAndStandby(f);
    await expect.poll(() => f.sandboxPids().length, { timeout: 20_000 }).toBe(1);
    const frozenPid = frozen.child.pid!;
    const childrenBefore = childrenOf(frozenPid);

    process.kill(frozenPid, "SIGSTOP");
    await expect
      .poll(async () => (await f.snapshot(standby)).leader, { timeout: 2 * LEASE_TTL_MS })
      .toBe(true);
    // Work arrives while the old leader is frozen: the new one scales the fleet up to its max.
    await submitBurst(f.d, "frozen", 60, 1, 1_500);
    await expect.poll(() => f.sandboxPids().length, { timeout: 20_000 }).toBe(3);

    process.kill(frozenPid, "SIGCONT");
    // Thawed, it sees the same pressure, but it no longer leads: it starts nothing, orders nothing.
    await expect.poll(async () => (await f.snapshot(frozen)).leader, { timeout: 5_000 }).toBe(false);
    const redis = new Redis(f.d.redis.url);
    try {
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(childrenOf(frozenPid)).toEqual(childrenBefore);
        expect(f.sandboxPids().length).toBeLessThanOrEqual(3);
        expect(await redis.hgetall(`{${f.d.redis.prefix}}:host-orders`)).toEqual({});
      }
    } finally {
      redis.disconnect();
    }
    expect((await f.pool()).controller?.leaderId).toBe((await f.snapshot(standby)).leaderId);
  });
});
