// @module-tag unit

import { afterEach, describe, expect, it } from "vitest";
import { createMemoryHost, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** A gated run (wait_tool, then output) through to its end: what checkpoints it left. */
async function checkpointsOfAGatedRun(checkpoints: boolean | undefined) {
  host = createMemoryHost({ waitMode: "hold", ...(checkpoints === undefined ? {} : { checkpoints }) });
  await host.lifecycle.start();
  const h = host;
  const run = await h.submit("gated", "done", { gated: true });
  await expect.poll(() => h.status(run), POLL).toBe("waiting_tool");
  await h.open(run);
  await expect.poll(() => h.status(run), POLL).toBe("completed");
  expect((await h.store.getRun(run.id))?.output).toBe("done");
  return h.service.listCheckpoints(run.id);
}

describe("the checkpoints switch (OAH_CHECKPOINTS)", () => {
  it("on by default: the held wait, the tool's answer and the output step each leave one", async () => {
    const marks = await checkpointsOfAGatedRun(undefined);
    expect(marks.map((m) => m.attempt)).toEqual([1, 1, 1]);
  });

  it("off: the same run completes with the same output and leaves none", async () => {
    expect(await checkpointsOfAGatedRun(false)).toEqual([]);
  });
});
