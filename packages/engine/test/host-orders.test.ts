// @module-tag unit

import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const snapshot = async (h: MemoryHost) => (await h.fleet.poolOverview()).hosts[0];
const hostState = async (h: MemoryHost) => (await snapshot(h))?.state;

/** The memory host's order follower and pool tick every 10 ms: one tick of each. */
const TICK_MS = 10;

describe("orders to a host: cordon, uncordon, drain", () => {
  it("a cordoned host claims nothing new, lets its run in hand finish, and claims again once uncordoned", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({ clock });
    const h = host;
    await h.lifecycle.start();
    const inHand = await h.submit("held", "a", { gated: true });
    await expect.poll(() => h.status(inHand), POLL).toBe("waiting_tool");

    expect(await h.fleet.cordon("memory-host")).toEqual({ hostId: "memory-host", state: "cordoned" });
    await clock.advance(2 * TICK_MS);
    await expect.poll(() => hostState(h), POLL).toBe("cordoned");
    const later = await h.submit("later", "b");
    await h.open(inHand);
    await expect.poll(() => h.status(inHand), POLL).toBe("completed");
    // Thirty ticks of the pool pass, the last one now: the queued run stays queued, and no slot is left.
    await clock.advance(30 * TICK_MS);
    expect((await snapshot(h))?.at).toBe(clock.now());
    expect(await h.status(later)).toBe("queued");
    expect(h.lifecycle.slots()).toEqual([]);

    expect(await h.fleet.uncordon("memory-host")).toEqual({ hostId: "memory-host", state: "active" });
    await clock.advance(2 * TICK_MS);
    await expect.poll(() => h.status(later), POLL).toBe("completed");
    expect(await hostState(h)).toBe("active");
  });

  it("a drain lets runs finish up to the drain timeout, hands the rest to recovery, and ends drained", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({ clock });
    const h = host;
    let drained = 0;
    h.lifecycle.onDrained(() => drained++);
    await h.lifecycle.start();
    const stuck = await h.submit("stuck", "a", { sleepMs: 60_000 });
    await expect.poll(() => h.status(stuck), POLL).toBe("running");

    expect(await h.fleet.drain("memory-host")).toEqual({ hostId: "memory-host", state: "draining" });
    await clock.advance(2 * TICK_MS);
    await expect.poll(() => hostState(h), POLL).toBe("draining");
    // Short of the drain timeout (2 s) the run goes on; once it passes, recovery requeues it.
    await clock.advance(1_900);
    expect(await hostState(h)).toBe("draining");
    expect(await h.status(stuck)).toBe("running");
    await clock.advance(100 + TICK_MS);
    await expect.poll(() => hostState(h), POLL).toBe("drained");
    expect(drained).toBe(1);
    expect(await h.status(stuck)).toBe("queued");
    expect(await h.eventTypes(stuck)).toContain("run.requeued");

    await h.fleet.uncordon("memory-host");
    await clock.advance(2 * TICK_MS);
    await expect.poll(() => h.status(stuck), POLL).toBe("running");
  });

  it("refuses an order to a host that is not live with host_not_found", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    await expect(h.fleet.cordon("no-such-host")).rejects.toMatchObject({ code: "host_not_found" });
    expect(await h.orders.orderOf("no-such-host")).toBeNull();
  });
});
