// @module-tag unit

import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, GATE, type MemoryHost } from "./memory-host";

/** The memory host's heartbeat interval. */
const HEARTBEAT_MS = 50;

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe("a held wait (OAH_WAIT_MODE=hold)", () => {
  it("finds its result on the heartbeat when no signal told it", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({ waitMode: "hold", clock });
    const h = host;
    await h.lifecycle.start();
    const run = await h.submit("held", "done", { gated: true });
    await expect.poll(() => h.status(run), POLL).toBe("waiting_tool");
    // Delivered to the store alone: no signal reaches the execution, which waits for the heartbeat.
    expect(await h.store.deliverToolResult(run.id, GATE, { opened: true })).toMatchObject({
      kind: "accepted",
      resume: null,
    });
    await clock.advance(HEARTBEAT_MS - 1);
    expect(await h.status(run)).toBe("waiting_tool");
    await clock.advance(1);
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect(h.lifecycle.slots().filter((s) => s.runId === run.id)).toEqual([]);
  });
});
