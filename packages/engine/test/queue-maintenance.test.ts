// @module-tag unit

import { newRun } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { queueReconcile } from "../src/maintenance/queue-reconcile";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** The reconcile task of this host, run once as its interval would. */
const reconcile = (h: MemoryHost) =>
  queueReconcile({ host: h.maintenanceHost, settings: h.recovery }).run({ atStart: false });

/** Runs stored as queued without a word to the queue (as if it lost them). */
async function storedOnly(h: MemoryHost, sessionId: string, count: number) {
  const runs = [];
  for (let i = 0; i < count; i++) runs.push((await h.store.createRun(newRun(sessionId))).run);
  return runs;
}

describe("queue maintenance on the in-memory store", () => {
  it("refills an empty queue from the store at start: every queued run executes, in order", async () => {
    host = createMemoryHost();
    const h = host;
    const r = await storedOnly(h, "m-refill-r", 3);
    const s = await storedOnly(h, "m-refill-s", 2);
    expect(await h.queue.size()).toBe(0);
    await h.lifecycle.start();
    await expect.poll(() => h.statuses([...r, ...s]), POLL).toEqual(Array(5).fill("completed"));
    expect(h.executor.order("m-refill-r")).toEqual(r.map((run) => run.id));
    expect(h.executor.order("m-refill-s")).toEqual(s.map((run) => run.id));
  });

  it("enqueues a run the queue lost; the run behind it waits for it instead of overtaking it", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    // Submitted a minute ago, and its queue entry lost.
    h.skewClock(-60_000);
    const [lost] = await storedOnly(h, "m-lost", 1);
    h.skewClock(0);
    const behind = await h.submit("m-lost", "behind");

    // A worker claims the run behind it: the store refuses it its start, and it waits.
    await expect.poll(() => h.store.starts, POLL).toContainEqual({ runId: behind.id, kind: "blocked" });
    // Put back, and its session unlocked: no claim holds the lost run's session any more.
    await expect.poll(() => h.queue.size(), POLL).toBe(1);
    expect(await h.statuses([lost!, behind])).toEqual(["queued", "queued"]);

    await reconcile(h);
    await expect.poll(() => h.statuses([lost!, behind]), POLL).toEqual(["completed", "completed"]);
    expect(h.executor.order("m-lost")).toEqual([lost!.id, behind.id]);
    const lostEnded = await h.eventId(lost!, "run.completed");
    expect(await h.eventId(behind, "run.started")).toBeGreaterThan(lostEnded!);
  });

  it("leaves alone a queued run not waiting long enough to be lost", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    const [fresh] = await storedOnly(h, "m-fresh", 1);
    await reconcile(h);
    expect(await h.queue.size()).toBe(0);
    expect(await h.status(fresh!)).toBe("queued");
  });

  it("drops the queue entry of a run that is no longer queued", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    const head = await h.submit("m-drop", "head", { gated: true });
    const behind = await h.submit("m-drop", "behind");
    await expect.poll(() => h.status(head), POLL).toBe("waiting_tool");
    // Cancelled in the store behind the queue's back: its entry waits behind the locked session.
    await h.store.requestCancel(behind.id);
    expect(await h.queue.size()).toBe(1);

    await reconcile(h);
    expect(await h.queue.size()).toBe(0);
    await h.open(head);
    await expect.poll(() => h.status(head), POLL).toBe("completed");
    expect(h.store.starts.some((s) => s.runId === behind.id)).toBe(false);
    expect(await h.eventTypes(behind)).toEqual(["run.queued", "run.cancelled"]);
  });

  it("at start, requeues a run a previous process left running, at its place before the runs behind it", async () => {
    host = createMemoryHost();
    const h = host;
    const [left, behind] = await storedOnly(h, "m-left", 2);
    expect(await h.store.startRun({ runId: left!.id, token: "gone" }, "old-host/w1")).toMatchObject({
      kind: "started",
    });
    await h.lifecycle.start();
    await expect.poll(() => h.statuses([left!, behind!]), POLL).toEqual(["completed", "completed"]);
    expect(h.executor.order("m-left")).toEqual([left!.id, behind!.id]);
    expect(await h.store.getRun(left!.id)).toMatchObject({
      attempt: 2,
      recoveryState: "requeued",
      metadata: { recoveryAttempts: 1 },
    });
  });

  it("on a host sharing its queue, the periodic stale-run scan recovers a run whose host went silent once it is stale", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({
      clock,
      recovery: { exclusiveOwner: false, scanIntervalMs: 1_000, staleAfterMs: 30_000 },
    });
    const h = host;
    const [left] = await storedOnly(h, "m-silent", 1);
    expect(await h.store.startRun({ runId: left!.id, token: "gone" }, "old-host/w1")).toMatchObject({
      kind: "started",
    });
    await h.lifecycle.start();
    // A scan every second: none finds its heartbeat older than 30 s until 30 s have passed.
    await clock.advance(29_000);
    expect(await h.status(left!)).toBe("running");
    await clock.advance(2_000);
    await expect.poll(() => h.status(left!), POLL).toBe("completed");
    expect(await h.store.getRun(left!.id)).toMatchObject({ attempt: 2, recoveryState: "requeued" });
    expect(h.executor.order("m-silent")).toEqual([left!.id]);
  });
});
