// @module-tag unit

import { afterEach, describe, expect, it } from "vitest";
import { createMemoryHost, GATE, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe("a held wait (OAH_WAIT_MODE=hold)", () => {
  it("finds its result on the heartbeat when no signal told it", async () => {
    host = createMemoryHost({ waitMode: "hold" });
    const h = host;
    await h.lifecycle.start();
    const run = await h.submit("held", "done", { gated: true });
    await expect.poll(() => h.status(run), POLL).toBe("waiting_tool");
    // Delivered to the store alone: no signal reaches the execution.
    expect(await h.store.deliverToolResult(run.id, GATE, { opened: true })).toMatchObject({
      kind: "accepted",
      resume: null,
    });
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect(h.lifecycle.slots().filter((s) => s.runId === run.id)).toEqual([]);
  });
});
