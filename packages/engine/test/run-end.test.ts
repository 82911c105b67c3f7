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

describe("the end of a run", () => {
  it("frees its slot while its terminal write waits out a store outage, and releases its session only once written", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({ pool: { min: 1, max: 1 }, clock });
    const h = host;
    const first = await h.submit("ends-late", "first");
    const next = await h.submit("ends-late", "next");
    // The store refuses this run's terminal write until the outage ends.
    let outage = true;
    let refused = 0;
    const finishRun = h.store.finishRun.bind(h.store);
    h.store.finishRun = async (claim, outcome) => {
      if (outage && claim.runId === first.id) {
        refused++;
        throw new Error("the store cannot be reached");
      }
      return finishRun(claim, outcome);
    };
    await h.lifecycle.start();
    // Tried again after 100 ms, then after twice as long each time.
    await expect.poll(() => refused, POLL).toBe(1);
    await clock.advance(99);
    expect(refused).toBe(1);
    await clock.advance(1);
    await expect.poll(() => refused, POLL).toBe(2);

    // The one slot serves another session meanwhile; the session of the run stays its own.
    const other = await h.submit("meanwhile", "other");
    await expect.poll(() => h.status(other), POLL).toBe("completed");
    expect(await h.statuses([first, next])).toEqual(["running", "queued"]);

    outage = false;
    await clock.advance(199);
    expect(await h.statuses([first, next])).toEqual(["running", "queued"]);
    await clock.advance(1);
    await expect.poll(() => h.statuses([first, next]), POLL).toEqual(["completed", "completed"]);
    expect(await h.store.getRun(first.id)).toMatchObject({ output: "first" });
    expect(h.executor.order("ends-late")).toEqual([first.id, next.id]);
  });
});
