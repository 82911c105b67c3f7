// @module-tag unit

import type { Run, ScriptInput } from "@oah/contract";
import { type FakeModel, startFakeModel } from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, type MemoryHost, type MemoryHostOptions } from "./memory-host";

const POLL = { timeout: 5_000 };
const GRACE_MS = 10_000;

let model: FakeModel;
let host: MemoryHost | undefined;
let clock: ManualClock;
beforeAll(async () => {
  model = await startFakeModel();
});
afterAll(() => model.close());
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

async function start(options: MemoryHostOptions = {}): Promise<MemoryHost> {
  clock = new ManualClock(1_700_000_000_000);
  host = createMemoryHost({
    model: { baseUrl: model.url, model: "m", apiKey: undefined, timeoutMs: 30_000 },
    clock,
    interruptGraceMs: GRACE_MS,
    ...options,
  });
  await host.lifecycle.start();
  return host;
}

/** A model call the test holds in flight until it calls the answer's `release`. */
function heldReply(content: string) {
  let release!: () => void;
  const after = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { reply: { content, after }, release };
}

const THREE_CALLS: ScriptInput["steps"] = [
  { type: "model", prompt: "one" },
  { type: "model", prompt: "two" },
  { type: "model", prompt: "three" },
];

const stepsOf = async (h: MemoryHost, run: Run) =>
  (await h.store.listRunSteps(run.id)).map((s) => [s.name === "m" ? "model" : s.name, s.status]);

describe("a busy session's policies in the engine (docs/spec.md §5)", () => {
  it("interrupt: the executing run ends at its next step boundary, its step in flight done, interrupted; the new run goes after it", async () => {
    const h = await start();
    const second = heldReply("two");
    model.reply({ content: "one" }, second.reply);
    const before = model.requests.length;
    const first = await h.script("s-int", THREE_CALLS);
    await expect.poll(() => model.requests.length - before, POLL).toBe(2);
    const next = await h.script("s-int", [{ type: "output", value: "next" }], { ifBusy: "interrupt" });
    // The interrupt has been heard (the in-process signal is delivered before submit answers),
    // and the model call in flight is not cut short: it is a step, and the grace has not passed.
    expect(await h.status(first)).toBe("running");
    second.release();
    await expect.poll(() => h.statuses([first, next]), POLL).toEqual(["cancelled", "completed"]);
    expect(await h.store.getRun(first.id)).toMatchObject({
      errorCode: "interrupted",
      errorMessage: `interrupted by ${next.id}`,
      cancelledBy: { runId: next.id, reason: "interrupted" },
    });
    expect(model.requests.length - before).toBe(2);
    expect(await stepsOf(h, first)).toEqual([
      ["model", "completed"],
      ["model", "completed"],
    ]);
    // Its checkpoint is kept: the last after the step it finished.
    expect((await h.store.listCheckpoints(first.id)).length).toBe(2);
    // The session stayed serial: the new run started after the interrupted one ended.
    expect(h.executor.order("s-int")).toEqual([first.id, next.id]);
  });

  it("interrupt: a step still running after the grace is cut short, as a cancel cuts it", async () => {
    const h = await start();
    const held = heldReply("never");
    model.reply(held.reply);
    const before = model.requests.length;
    const first = await h.script("s-grace", THREE_CALLS);
    await expect.poll(() => model.requests.length - before, POLL).toBe(1);
    const next = await h.script("s-grace", [{ type: "output", value: "next" }], { ifBusy: "interrupt" });
    await clock.advance(GRACE_MS - 1);
    expect(await h.status(first)).toBe("running");
    await clock.advance(1);
    await model.requests.at(-1)!.closedEarly;
    await expect.poll(() => h.statuses([first, next]), POLL).toEqual(["cancelled", "completed"]);
    expect(await h.store.getRun(first.id)).toMatchObject({ errorCode: "interrupted" });
    held.release();
  });

  it("interrupt stops a run waiting for a client's tool at once: the wait is between steps", async () => {
    const h = await start({ waitMode: "hold" });
    const first = await h.script("s-wait", [{ type: "wait_tool", name: "approve" }]);
    await expect.poll(() => h.status(first), POLL).toBe("waiting_tool");
    const next = await h.script("s-wait", [{ type: "output", value: "next" }], { ifBusy: "interrupt" });
    await expect.poll(() => h.statuses([first, next]), POLL).toEqual(["cancelled", "completed"]);
    expect(await h.store.getRun(first.id)).toMatchObject({ errorCode: "interrupted" });
  });

  it("replace: queued runs end at once, the executing one at its boundary; only the new run executes after it", async () => {
    const h = await start({ pool: { min: 1, max: 1 } });
    const second = heldReply("two");
    model.reply({ content: "one" }, second.reply);
    const before = model.requests.length;
    const first = await h.script("s-rep", THREE_CALLS);
    const queued = await h.script("s-rep", [{ type: "output", value: "queued" }]);
    await expect.poll(() => model.requests.length - before, POLL).toBe(2);
    const replacing = await h.script("s-rep", [{ type: "output", value: "new" }], { ifBusy: "replace" });
    expect(await h.store.getRun(queued.id)).toMatchObject({ status: "cancelled", errorCode: "replaced" });
    second.release();
    await expect.poll(() => h.statuses([first, replacing]), POLL).toEqual(["cancelled", "completed"]);
    expect(await h.store.getRun(first.id)).toMatchObject({ errorCode: "replaced" });
    expect(h.executor.order("s-rep")).toEqual([first.id, replacing.id]);
  });

  it("reject: refused with session_busy while the session runs, admitted once it is idle", async () => {
    const h = await start();
    const held = heldReply("one");
    model.reply(held.reply);
    const first = await h.script("s-rej", [{ type: "model", prompt: "one" }]);
    await expect(
      h.script("s-rej", [{ type: "output", value: 1 }], { ifBusy: "reject" }),
    ).rejects.toMatchObject({
      code: "session_busy",
      details: { runId: first.id },
    });
    held.release();
    await expect.poll(() => h.status(first), POLL).toBe("completed");
    const admitted = await h.script("s-rej", [{ type: "output", value: 2 }], { ifBusy: "reject" });
    await expect.poll(() => h.status(admitted), POLL).toBe("completed");
    expect((await h.store.listSessionRuns("s-rej", { limit: 10 })).map((r) => r.id)).toEqual([
      first.id,
      admitted.id,
    ]);
  });
});
