// @module-tag unit

import { MemorySessionQueue } from "@oah/coordination";
import type { QueueEntry } from "@oah/core";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../src";
import { Settling } from "../src/settling";
import { HeldClaim } from "../src/worker/held-claim";
import { ManualClock } from "./manual-clock";

const HOLD_MS = 100;

const ENTRY: QueueEntry = {
  runId: "run_ahead",
  sessionId: "ahead",
  workspaceId: "default",
  queueSeq: 1,
  priority: "normal",
  enqueuedAt: 0,
};

/** A claim ahead on a queue of its own, that holds ENTRY unless told it is empty. */
async function claimAhead(queued: boolean) {
  const clock = new ManualClock();
  const queue = new MemorySessionQueue({ lockTtlMs: 30_000, now: () => clock.now() });
  if (queued) await queue.enqueue([ENTRY]);
  const told: string[] = [];
  const settling = new Settling();
  const observers = { claimedAhead: ({ outcome }: { outcome: string }) => told.push(outcome) };
  const held = new HeldClaim({ clock, queue, logger: silentLogger, settling, observers }, HOLD_MS);
  /** The session as the queue holds it now. */
  const session = async () => {
    const [view] = await queue.inspect([ENTRY.sessionId]);
    return {
      locked: view!.lock !== null,
      ready: view!.ready !== null,
      runs: view!.entries.map((e) => e.runId),
    };
  };
  return { clock, held, told, settling, session };
}

describe("a session claimed ahead", () => {
  it("taken within its hold, it is the slot's next claim", async () => {
    const c = await claimAhead(true);
    await c.clock.advance(HOLD_MS - 1);
    expect((await c.held.take())?.entry).toEqual(ENTRY);
    expect(c.told).toEqual(["taken"]);
    expect(await c.session()).toMatchObject({ locked: true, ready: false });
    // Its hold passing later puts nothing back.
    await c.clock.advance(HOLD_MS);
    expect(c.told).toEqual(["taken"]);
  });

  it("not taken within its hold, goes back to its place in line for any slot", async () => {
    const c = await claimAhead(true);
    await c.clock.advance(HOLD_MS - 1);
    expect(await c.session()).toMatchObject({ locked: true, ready: false });
    await c.clock.advance(1);
    await c.settling.done();
    expect(c.told).toEqual(["put_back"]);
    expect(await c.session()).toEqual({ locked: false, ready: true, runs: [ENTRY.runId] });
    expect(await c.held.take()).toBeNull();
  });

  it("in a process frozen past its hold, whose timer has not run yet, is put back instead of taken", async () => {
    const c = await claimAhead(true);
    c.clock.jump(HOLD_MS + 1);
    expect(await c.held.take()).toBeNull();
    expect(c.told).toEqual(["put_back"]);
    expect(await c.session()).toEqual({ locked: false, ready: true, runs: [ENTRY.runId] });
    // The late timer finds it put back already.
    await c.clock.advance(0);
    await c.settling.done();
    expect(c.told).toEqual(["put_back"]);
  });

  it("that found nothing to claim gives the slot nothing", async () => {
    const c = await claimAhead(false);
    expect(await c.held.take()).toBeNull();
    expect(c.told).toEqual(["empty"]);
  });
});
