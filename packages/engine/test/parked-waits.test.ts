// @module-tag unit

import type { Run, ScriptInput } from "@oah/contract";
import { type FakeModel, startFakeModel } from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PARKED_TIMEOUT_INTERVAL_MS } from "../src/maintenance/parked-timeouts";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, GATE, type MemoryHost, type MemoryHostOptions } from "./memory-host";

const POLL = { timeout: 5_000 };

let host: MemoryHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

async function parkingHost(options: MemoryHostOptions = {}): Promise<MemoryHost> {
  host = createMemoryHost({ waitMode: "park", ...options });
  await host.lifecycle.start();
  return host;
}

const parked = async (h: MemoryHost, run: Run) => (await h.store.getRun(run.id))?.metadata.parked === true;

describe("parked waits (OAH_WAIT_MODE=park)", () => {
  it("a waiting run frees its slot: two slots serve ten waiting sessions and other work meanwhile", async () => {
    const h = await parkingHost({ pool: { min: 2, max: 2 } });
    const waiting: Run[] = [];
    for (let i = 0; i < 10; i++) waiting.push(await h.submit(`park-${i}`, { n: i }, { gated: true }));
    await expect.poll(() => h.statuses(waiting), POLL).toEqual(Array(10).fill("waiting_tool"));
    for (const run of waiting) {
      expect(await h.store.getRun(run.id)).toMatchObject({
        workerId: null,
        waitingTool: GATE,
        metadata: { parked: true },
      });
    }
    expect(h.lifecycle.slots().every((s) => s.state === "idle")).toBe(true);
    // Work of other sessions goes on beside them.
    const others = await Promise.all(Array.from({ length: 6 }, (_, i) => h.submit(`busy-${i}`, i)));
    await expect.poll(() => h.statuses(others), POLL).toEqual(Array(6).fill("completed"));

    for (const run of waiting) await h.open(run);
    await expect.poll(() => h.statuses(waiting), POLL).toEqual(Array(10).fill("completed"));
    for (const [i, run] of waiting.entries()) {
      const done = (await h.store.getRun(run.id))!;
      expect(done).toMatchObject({ output: { n: i }, attempt: 1, metadata: {} });
      expect(done.metadata.parked).toBeUndefined();
      expect(await h.eventTypes(run)).toEqual([
        "run.queued",
        "run.started",
        "run.waiting_tool",
        "run.resumed",
        "run.completed",
      ]);
      // The gate's result is a step of the run, as when the wait is held.
      expect(await h.store.listRunSteps(run.id)).toMatchObject([
        { kind: "tool", name: GATE, status: "completed", output: { opened: true } },
      ]);
    }
    // Each run was executed twice: up to its park, then from it.
    expect(h.executor.executions.filter((e) => e.runId === waiting[0]!.id)).toHaveLength(2);
  });

  it("keeps its session exclusive: a later run starts only after the parked run ended", async () => {
    const clock = new ManualClock();
    const h = await parkingHost({ clock });
    const first = await h.submit("park-order", "first", { gated: true });
    const second = await h.submit("park-order", "second");
    await expect.poll(() => parked(h, first), POLL).toBe(true);
    // However long the wait, the session's later run does not overtake it: half a minute of pool
    // ticks, heartbeats and deadline checks (half the run's timeout), the last tick now.
    await clock.advance(30_000);
    expect((await h.fleet.poolOverview()).hosts[0]?.at).toBe(clock.now());
    expect(await h.statuses([first, second])).toEqual(["waiting_tool", "queued"]);
    await h.open(first);
    await expect.poll(() => h.statuses([first, second]), POLL).toEqual(["completed", "completed"]);
    const [a, b] = await Promise.all([h.store.getRun(first.id), h.store.getRun(second.id)]);
    expect(Date.parse(b!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(a!.endedAt!));
    expect(h.executor.order("park-order")).toEqual([first.id, first.id, second.id]);
  });

  it("cancels a parked run at once, and its session goes on", async () => {
    const h = await parkingHost();
    const first = await h.submit("park-cancel", "first", { gated: true });
    const second = await h.submit("park-cancel", "second");
    await expect.poll(() => parked(h, first), POLL).toBe(true);
    expect(await h.service.cancel(first.id)).toEqual({ runId: first.id, status: "cancelled" });
    await expect.poll(() => h.statuses([first, second]), POLL).toEqual(["cancelled", "completed"]);
    await expect(h.service.submitToolResult(first.id, GATE, {})).rejects.toMatchObject({
      code: "tool_result_not_waiting",
    });
  });

  it("cancels a parked run whose result arrived but which has not resumed yet", async () => {
    const h = await parkingHost({ pool: { min: 1, max: 1 } });
    const run = await h.submit("park-cancel-resumable", "x", { gated: true });
    const blocker = await h.submit("park-blocker", "y", { gated: true });
    await expect.poll(async () => (await parked(h, run)) && (await parked(h, blocker)), POLL).toBe(true);
    await h.lifecycle.stop(); // nobody to resume it: its resume entry waits in the queue
    await h.open(run);
    expect(await h.queue.size()).toBe(1);
    await h.service.cancel(run.id);
    expect(await h.status(run)).toBe("cancelled");
    expect(await h.queue.size()).toBe(0);
  });

  it("ends a parked run past its deadline timed_out, and its session goes on", async () => {
    const clock = new ManualClock();
    const h = await parkingHost({ clock });
    const run = await h.script("park-deadline", [{ type: "wait_tool", name: GATE }], { timeoutMs: 300 });
    const next = await h.submit("park-deadline", "next");
    await expect.poll(() => parked(h, run), POLL).toBe(true);
    // Past its deadline it waits for the next check of the parked runs' deadlines, a second after the start.
    await clock.advance(PARKED_TIMEOUT_INTERVAL_MS - 1);
    expect(await h.status(run)).toBe("waiting_tool");
    await clock.advance(1);
    await expect.poll(() => h.status(run), POLL).toBe("timed_out");
    expect(await h.store.getRun(run.id)).toMatchObject({
      errorCode: "run_timed_out",
      errorMessage: "run exceeded its timeout of 300 ms",
      metadata: {},
    });
    await expect.poll(() => h.status(next), POLL).toBe("completed");
  });

  it("a resumed run keeps its deadline: the time it was parked counts", async () => {
    const clock = new ManualClock();
    const h = await parkingHost({ clock });
    const steps: ScriptInput["steps"] = [
      { type: "wait_tool", name: GATE },
      { type: "sleep", ms: 5_000 },
    ];
    const run = await h.script("park-deadline-resumed", steps, { timeoutMs: 1_500 });
    await expect.poll(() => parked(h, run), POLL).toBe(true);
    const deadline = Date.parse((await h.store.getRun(run.id))!.startedAt!) + 1_500;
    await clock.advance(800);
    await h.open(run);
    await expect.poll(() => h.status(run), POLL).toBe("running");
    // Timed out by the resumed execution's timer, at the run's deadline, not 1.5 s after the resume.
    await clock.advance(deadline - clock.now() - 1);
    expect(await h.status(run)).toBe("running");
    await clock.advance(1);
    await expect.poll(() => h.status(run), POLL).toBe("timed_out");
    expect(Date.parse((await h.store.getRun(run.id))!.endedAt!)).toBe(deadline);
  });

  it("a script resumes where it parked, with what it had: its output and its earlier results", async () => {
    const h = await parkingHost();
    const run = await h.script("park-script", [
      { type: "output", value: "before" },
      { type: "wait_tool", name: "one" },
      { type: "wait_tool", name: "two" },
    ]);
    await expect.poll(() => h.store.getRun(run.id), POLL).toMatchObject({ waitingTool: "one" });
    await h.service.submitToolResult(run.id, "one", 1);
    await expect
      .poll(() => h.store.getRun(run.id), POLL)
      .toMatchObject({
        waitingTool: "two",
        metadata: { parked: true },
      });
    await h.service.submitToolResult(run.id, "two", 2);
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect((await h.store.getRun(run.id))?.output).toBe("before");
    expect((await h.store.listRunSteps(run.id)).map((s) => [s.name, s.output])).toEqual([
      ["one", 1],
      ["two", 2],
    ]);
  });

  it("a host that stops leaves its parked runs as they are; another resumes them", async () => {
    const h = await parkingHost();
    const run = await h.submit("park-restart", "after restart", { gated: true });
    await expect.poll(() => parked(h, run), POLL).toBe(true);
    await h.lifecycle.stop();
    expect(await h.store.getRun(run.id)).toMatchObject({
      status: "waiting_tool",
      metadata: { parked: true },
    });
    // The stale-run scan of a new host takes every active run of the store as stale (exclusive owner).
    const recovered = await h.store.findStaleRuns({ lastSeenBefore: Number.MAX_SAFE_INTEGER, limit: 100 });
    expect(recovered.map((r) => r.id)).not.toContain(run.id);
  });
});

describe("a parked agent", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel();
  });
  afterAll(() => model?.close());

  it("goes on from the conversation it saved, the client tool's result in it", async () => {
    const h = await parkingHost({
      model: { baseUrl: model.url, model: "fake-1", apiKey: undefined, timeoutMs: 5_000 },
    });
    model.reply(
      {
        content: "Checking both.",
        toolCalls: [
          { id: "call-1", name: "weather", arguments: { city: "Lisbon" } },
          { id: "call-2", name: "weather", arguments: { city: "Porto" } },
        ],
      },
      { content: "Sunny in Lisbon, rain in Porto." },
    );
    const { run } = await h.service.submit({
      sessionId: "park-agent",
      executor: "agent",
      input: {
        prompt: "Weather in Lisbon and Porto?",
        tools: { shell: false, shellOnInterrupt: "rerun", client: [{ name: "weather" }] },
        maxSteps: 4,
      },
      priority: "normal",
      workspaceId: "default",
      ifBusy: "enqueue",
    });
    for (const sky of ["sunny", "rain"]) {
      await expect.poll(() => parked(h, run), POLL).toBe(true);
      await h.service.submitToolResult(run.id, "weather", { sky });
    }
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    const output = (await h.store.getRun(run.id))?.output as { answer: string; messages: unknown[] };
    expect(output.answer).toBe("Sunny in Lisbon, rain in Porto.");
    expect(output.messages).toEqual([
      { role: "user", content: "Weather in Lisbon and Porto?" },
      expect.objectContaining({ role: "assistant", content: "Checking both." }),
      { role: "tool", tool_call_id: "call-1", content: JSON.stringify({ sky: "sunny" }) },
      { role: "tool", tool_call_id: "call-2", content: JSON.stringify({ sky: "rain" }) },
      { role: "assistant", content: "Sunny in Lisbon, rain in Porto." },
    ]);
    // The model's second call saw both results: the conversation came back whole after each park.
    expect(model.requests.at(-1)!.body.messages.filter((m) => m.role === "tool")).toHaveLength(2);
    const types = await h.eventTypes(run);
    expect(types.filter((t) => t === "run.resumed")).toHaveLength(2);
    expect(types.filter((t) => t === "tool.completed")).toHaveLength(2);
    expect(types.filter((t) => t === "model.completed")).toHaveLength(2);
  });
});

describe("a parked agent of a later turn", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel();
  });
  afterAll(() => model?.close());

  it("saves its own messages and the run the earlier turns come from, and goes on with the whole conversation", async () => {
    const h = await parkingHost({
      model: { baseUrl: model.url, model: "fake-1", apiKey: undefined, timeoutMs: 5_000 },
    });
    const saved: unknown[] = [];
    const park = h.store.parkRun;
    h.store.parkRun = (claim, wait) => {
      saved.push(wait.state);
      return park(claim, wait);
    };
    const lisbon = {
      id: "call-1",
      type: "function",
      function: { name: "weather", arguments: '{"city":"Lisbon"}' },
    };
    model.reply(
      { content: "Hello." },
      { toolCalls: [{ id: "call-1", name: "weather", arguments: { city: "Lisbon" } }] },
      { content: "Sunny." },
    );
    const submit = async (prompt: string) =>
      (
        await h.service.submit({
          sessionId: "park-turns",
          executor: "agent",
          input: {
            prompt,
            tools: { shell: false, shellOnInterrupt: "rerun", client: [{ name: "weather" }] },
            maxSteps: 4,
          },
          priority: "normal",
          workspaceId: "default",
          ifBusy: "enqueue",
        })
      ).run;
    const first = await submit("Hi.");
    await expect.poll(() => h.status(first), POLL).toBe("completed");
    const second = await submit("Weather in Lisbon?");
    await expect.poll(() => parked(h, second), POLL).toBe(true);
    const asked = [
      { role: "user", content: "Weather in Lisbon?" },
      { role: "assistant", content: null, tool_calls: [lisbon] },
    ];
    // The first turn's messages are named, not copied.
    expect(saved).toEqual([
      { messages: asked, calls: 1, pending: [lisbon], logged: 2, carried: { runId: first.id, messages: 2 } },
    ]);

    await h.service.submitToolResult(second.id, "weather", { sky: "sunny" });
    await expect.poll(() => h.status(second), POLL).toBe("completed");
    const whole = [
      { role: "user", content: "Hi." },
      { role: "assistant", content: "Hello." },
      ...asked,
      { role: "tool", tool_call_id: "call-1", content: JSON.stringify({ sky: "sunny" }) },
    ];
    expect(model.requests.at(-1)!.body.messages).toEqual(whole);
    const output = (await h.store.getRun(second.id))?.output as { messages: unknown[] };
    expect(output.messages).toEqual([...whole, { role: "assistant", content: "Sunny." }]);
  });
});

describe("pool sizing with parked runs", () => {
  it("counts a parked run neither busy nor ready: fifty of them leave the pool at its min", async () => {
    const h = await parkingHost({
      pool: {
        min: 1,
        max: 8,
        hysteresis: { upSampleWindow: 1, downSampleWindow: 1, upCooldownMs: 0, downCooldownMs: 0 },
      },
    });
    const runs: Run[] = [];
    for (let i = 0; i < 50; i++) runs.push(await h.submit(`park-pool-${i}`, i, { gated: true }));
    await expect.poll(() => h.statuses(runs), POLL).toEqual(Array(50).fill("waiting_tool"));
    await expect
      .poll(async () => (await h.fleet.poolOverview()).hosts[0], POLL)
      .toMatchObject({ desired: 1, busyWorkers: 0, pressure: { readySessionCount: 0 } });
    await expect.poll(() => h.lifecycle.slots().length, POLL).toBe(1);
    for (const run of runs) await h.open(run);
    await expect.poll(() => h.statuses(runs), POLL).toEqual(Array(50).fill("completed"));
  });
});
