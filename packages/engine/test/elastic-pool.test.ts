// @module-tag unit

import type { Run } from "@oah/contract";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe("the elastic pool on the in-memory store", () => {
  it("grows with the ready sessions up to its max, and shrinks back to its min once idle", async () => {
    host = createMemoryHost({
      pool: {
        min: 1,
        max: 3,
        hysteresis: { upSampleWindow: 1, downSampleWindow: 2, upCooldownMs: 0, downCooldownMs: 0 },
      },
    });
    const h = host;
    let largest = 0;
    /** The pool's size now, remembering the largest it ever was when looked at. */
    const size = () => {
      largest = Math.max(largest, h.lifecycle.slots().length);
      return h.lifecycle.slots().length;
    };
    await h.lifecycle.start();
    expect(size()).toBe(1);

    const runs: Run[] = [];
    for (let i = 0; i < 2; i++) runs.push(await h.submit(`p-${i}`, i, { gated: true }));
    await expect.poll(size, POLL).toBe(2);
    await expect.poll(() => h.statuses(runs), POLL).toEqual(["waiting_tool", "waiting_tool"]);

    for (let i = 2; i < 6; i++) runs.push(await h.submit(`p-${i}`, i, { gated: true }));
    await expect.poll(size, POLL).toBe(3);
    const busy = async () => (await h.statuses(runs)).filter((s) => s === "waiting_tool").length;
    await expect.poll(busy, POLL).toBe(3);
    // Three ready sessions still wait, and the pool stays at its max.
    expect((await h.statuses(runs)).filter((s) => s === "queued")).toHaveLength(3);
    expect((await h.queue.pressure()).readySessionCount).toBe(3);
    expect(size()).toBe(3);
    await expect
      .poll(async () => (await h.fleet.poolOverview()).hosts[0], POLL)
      .toMatchObject({ min: 1, max: 3, desired: 3, activeWorkers: 3, busyWorkers: 3 });
    const { recentDecisions } = await h.fleet.poolOverview();
    expect(Math.max(...recentDecisions.map((d) => d.desired))).toBe(3);

    // Every gate opened as its run reaches it: all end, and the idle pool goes back to its min.
    const opened = new Set<string>();
    await expect
      .poll(async () => {
        for (const run of runs) {
          if (opened.has(run.id) || (await h.status(run)) !== "waiting_tool") continue;
          opened.add(run.id);
          await h.open(run);
        }
        return h.statuses(runs);
      }, POLL)
      .toEqual(Array(6).fill("completed"));
    await expect.poll(size, POLL).toBe(1);
    expect(largest).toBe(3);
    expect((await h.fleet.poolOverview()).recentDecisions).toContainEqual(
      expect.objectContaining({ reason: "scale_down", desired: 1 }),
    );
  });

  it("keeps its size through its down cooldown once idle, and shrinks as soon as the cooldown has passed", async () => {
    const clock = new ManualClock();
    const COOLDOWN_MS = 5_000;
    host = createMemoryHost({
      clock,
      pool: {
        min: 1,
        max: 3,
        hysteresis: { upSampleWindow: 1, downSampleWindow: 1, upCooldownMs: 0, downCooldownMs: COOLDOWN_MS },
      },
    });
    const h = host;
    const snapshot = async () => (await h.fleet.poolOverview()).hosts[0]!;
    await h.lifecycle.start();
    const runs: Run[] = [];
    for (let i = 0; i < 3; i++) runs.push(await h.submit(`cool-${i}`, i, { gated: true }));
    // A tick (every 10 ms) at a time until the pool has grown to its max.
    await expect
      .poll(async () => {
        await clock.advance(10);
        return h.lifecycle.slots().length;
      }, POLL)
      .toBe(3);
    await expect.poll(() => h.statuses(runs), POLL).toEqual(Array(3).fill("waiting_tool"));
    const grown = (await snapshot()).lastRebalanceAt!;
    for (const run of runs) await h.open(run);
    await expect.poll(() => h.statuses(runs), POLL).toEqual(Array(3).fill("completed"));

    // Idle, it wants its min; the ticks until the cooldown has passed hold its size.
    await clock.advance(grown + COOLDOWN_MS - 1 - clock.now());
    expect(h.lifecycle.slots()).toHaveLength(3);
    expect(await snapshot()).toMatchObject({
      desired: 3,
      lastRebalanceAt: grown,
      lastRebalanceReason: "cooldown_hold",
    });
    expect((await snapshot()).downCooldownRemainingMs).toBeGreaterThan(0);
    await clock.advance(10);
    await expect.poll(() => h.lifecycle.slots().length, POLL).toBe(1);
    const down = (await h.fleet.poolOverview()).recentDecisions.find((d) => d.reason === "scale_down");
    expect(down).toMatchObject({ desired: 1 });
    expect(down!.at).toBeGreaterThanOrEqual(grown + COOLDOWN_MS);
  });

  it("starts no worker beyond its min while nothing is ready", async () => {
    host = createMemoryHost({ pool: { min: 0, max: 4 } });
    const h = host;
    await h.lifecycle.start();
    expect(h.lifecycle.slots()).toHaveLength(0);
    const run = await h.submit("p-lone", "only");
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    await expect.poll(() => h.lifecycle.slots().length, POLL).toBe(0);
    expect(h.executor.order("p-lone")).toEqual([run.id]);
  });
});
