// @module-tag unit

import { afterEach, describe, expect, it } from "vitest";
import { createMemoryHost, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const hostState = async (h: MemoryHost) => (await h.fleet.poolOverview()).hosts[0]?.state;

describe("orders to a host: cordon, uncordon, drain", () => {
  it("a cordoned host claims nothing new, lets its run in hand finish, and claims again once uncordoned", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    const inHand = await h.submit("held", "a", { gated: true });
    await expect.poll(() => h.status(inHand), POLL).toBe("waiting_tool");

    expect(await h.fleet.cordon("memory-host")).toEqual({ hostId: "memory-host", state: "cordoned" });
    await expect.poll(() => hostState(h), POLL).toBe("cordoned");
    const later = await h.submit("later", "b");
    await h.open(inHand);
    await expect.poll(() => h.status(inHand), POLL).toBe("completed");
    // Several ticks of the pool pass: the queued run stays queued, and no slot is left.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await h.status(later)).toBe("queued");
    expect(h.lifecycle.slots()).toEqual([]);

    expect(await h.fleet.uncordon("memory-host")).toEqual({ hostId: "memory-host", state: "active" });
    await expect.poll(() => h.status(later), POLL).toBe("completed");
    expect(await hostState(h)).toBe("active");
  });

  it("a drain lets runs finish up to the drain timeout, hands the rest to recovery, and ends drained", async () => {
    host = createMemoryHost();
    const h = host;
    let drained = 0;
    h.lifecycle.onDrained(() => drained++);
    await h.lifecycle.start();
    const stuck = await h.submit("stuck", "a", { sleepMs: 60_000 });
    await expect.poll(() => h.status(stuck), POLL).toBe("running");

    expect(await h.fleet.drain("memory-host")).toEqual({ hostId: "memory-host", state: "draining" });
    await expect.poll(() => hostState(h), POLL).toBe("draining");
    // The drain timeout (2 s) passes with the run still running: recovery requeues it.
    await expect.poll(() => hostState(h), { timeout: 8_000 }).toBe("drained");
    expect(drained).toBe(1);
    expect(await h.status(stuck)).toBe("queued");
    expect(await h.eventTypes(stuck)).toContain("run.requeued");

    await h.fleet.uncordon("memory-host");
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
