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

async function started(h: MemoryHost) {
  await h.lifecycle.start();
  return h;
}

/** Each run of the list started only after the one before it had ended (by the store's events). */
async function expectOneAfterAnother(h: MemoryHost, runs: readonly Run[]) {
  for (const [i, run] of runs.entries()) {
    if (i === 0) continue;
    const previousEnd = await h.eventId(runs[i - 1]!, "run.completed");
    const start = await h.eventId(run, "run.started");
    expect(previousEnd).toEqual(expect.any(Number));
    expect(start).toBeGreaterThan(previousEnd!);
  }
}

describe("the worker loop on the in-memory store", () => {
  it("executes a session's runs one at a time in order, and other sessions beside them", async () => {
    host = await started(createMemoryHost({ pool: { min: 3, max: 3 } }));
    const h = host;
    const a = [await h.submit("s-a", 1, { gated: true }), await h.submit("s-a", 2, { gated: true })];
    a.push(await h.submit("s-a", 3, { gated: true }));
    const b = [await h.submit("s-b", 1, { gated: true }), await h.submit("s-b", 2, { gated: true })];

    // The heads of both sessions execute at once; a free slot does not take a second run of either.
    await expect.poll(() => h.statuses([a[0]!, b[0]!]), POLL).toEqual(["waiting_tool", "waiting_tool"]);
    expect(await h.statuses([a[1]!, a[2]!, b[1]!])).toEqual(["queued", "queued", "queued"]);
    expect(h.lifecycle.slots().filter((s) => s.state === "idle")).toHaveLength(1);

    // One session going on does not wait for the other.
    await h.open(b[0]!);
    await expect.poll(() => h.status(b[1]!), POLL).toBe("waiting_tool");
    expect(await h.statuses([a[0]!, a[1]!])).toEqual(["waiting_tool", "queued"]);

    for (const run of [a[0]!, a[1]!, a[2]!]) {
      await expect.poll(() => h.status(run), POLL).toBe("waiting_tool");
      await h.open(run);
    }
    await h.open(b[1]!);
    await expect.poll(() => h.statuses([...a, ...b]), POLL).toEqual(Array(5).fill("completed"));

    expect(h.executor.order("s-a")).toEqual(a.map((r) => r.id));
    expect(h.executor.order("s-b")).toEqual(b.map((r) => r.id));
    expect(h.executor.maxInFlightPerSession).toBe(1);
    await expectOneAfterAnother(h, a);
    await expectOneAfterAnother(h, b);
    expect((await h.store.getRun(a[2]!.id))?.output).toBe(3);
  });

  it("keeps every session serial under load while sessions run in parallel", async () => {
    host = await started(createMemoryHost({ pool: { min: 4, max: 4 } }));
    const h = host;
    // More slots than sessions: idle slots are there to take a second run of a busy session.
    const sessions = ["l-0", "l-1", "l-2"];
    const runs: Run[] = [];
    for (let i = 0; i < 6; i++) {
      const wave: Run[] = [];
      for (const s of sessions) wave.push(await h.submit(s, i, { sleepMs: 40 }));
      runs.push(...wave);
      // The next wave arrives while this one executes: behind runs that hold their sessions.
      await expect
        .poll(async () => (await h.statuses(wave)).every((status) => status !== "queued"), {
          timeout: 5_000,
          interval: 2,
        })
        .toBe(true);
    }

    await expect
      .poll(() => h.statuses(runs), { timeout: 10_000 })
      .toEqual(Array(runs.length).fill("completed"));
    for (const s of sessions) {
      const mine = runs.filter((r) => r.sessionId === s);
      expect(h.executor.order(s)).toEqual(mine.map((r) => r.id));
      await expectOneAfterAnother(h, mine);
    }
    expect(h.executor.maxInFlightPerSession).toBe(1);
    expect(h.executor.maxInFlight).toBeGreaterThan(1);
    expect(h.executor.maxInFlight).toBeLessThanOrEqual(sessions.length);
  });

  it("pauses a second after a claim the queue failed, then claims again", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({ pool: { min: 1, max: 1 }, clock });
    const h = host;
    let claims = 0;
    const claim = h.queue.claim.bind(h.queue);
    h.queue.claim = async () => {
      if (++claims === 1) throw new Error("the queue cannot be reached");
      return claim();
    };
    await h.lifecycle.start();
    const run = await h.submit("after-pause", "x");
    await expect.poll(() => claims, POLL).toBe(1);
    await clock.advance(999);
    expect(claims).toBe(1);
    expect(await h.status(run)).toBe("queued");
    await clock.advance(1);
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect(claims).toBeGreaterThan(1);
  });

  it("ends a run that outlives its timeout timed_out, at its deadline", async () => {
    const clock = new ManualClock();
    host = await started(createMemoryHost({ clock }));
    const h = host;
    const { run } = await h.service.submit({
      sessionId: "outlived",
      executor: "script",
      input: { steps: [{ type: "sleep", ms: 60_000 }] },
      priority: "normal",
      workspaceId: "default",
      ifBusy: "enqueue",
      timeoutMs: 1_000,
    });
    await expect.poll(() => h.status(run), POLL).toBe("running");
    const deadline = Date.parse((await h.store.getRun(run.id))!.startedAt!) + 1_000;
    await clock.advance(deadline - clock.now() - 1);
    expect(await h.status(run)).toBe("running");
    await clock.advance(1);
    await expect.poll(() => h.status(run), POLL).toBe("timed_out");
    expect(await h.store.getRun(run.id)).toMatchObject({
      errorCode: "run_timed_out",
      endedAt: new Date(deadline).toISOString(),
    });
  });

  it("never starts a queued run that was cancelled, whether the queue was told or not", async () => {
    host = await started(createMemoryHost());
    const h = host;
    const head = await h.submit("s-cancel", "head", { gated: true });
    const toldQueue = await h.submit("s-cancel", "told");
    const storeOnly = await h.submit("s-cancel", "store only");
    const last = await h.submit("s-cancel", "last");
    await expect.poll(() => h.status(head), POLL).toBe("waiting_tool");

    expect(await h.service.cancel(toldQueue.id)).toEqual({ runId: toldQueue.id, status: "cancelled" });
    // A cancel the queue never heard of: the entry stays, and the store refuses its start.
    expect(await h.store.requestCancel(storeOnly.id)).toMatchObject({ kind: "cancelled" });
    expect(await h.queue.size()).toBe(2);

    await h.open(head);
    await expect.poll(() => h.status(last), POLL).toBe("completed");
    expect(await h.statuses([head, toldQueue, storeOnly])).toEqual(["completed", "cancelled", "cancelled"]);
    expect(h.executor.order("s-cancel")).toEqual([head.id, last.id]);
    expect(h.store.starts.filter((s) => s.runId === storeOnly.id)).toEqual([
      { runId: storeOnly.id, kind: "gone" },
    ]);
    expect(h.store.starts.some((s) => s.runId === toldQueue.id)).toBe(false);
    for (const run of [toldQueue, storeOnly])
      expect(await h.eventTypes(run)).toEqual(["run.queued", "run.cancelled"]);
    expect(await h.queue.size()).toBe(0);
  });
});
