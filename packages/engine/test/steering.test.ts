// @module-tag unit

import type { Run } from "@oah/contract";
import type { IfBusy } from "@oah/core";
import type { RunStore } from "@oah/store";
import { createMemoryStore, type FakeModel, type FakeReply, startFakeModel } from "@oah/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMemoryHost, type MemoryHost, type MemoryHostOptions } from "./memory-host";

const POLL = { timeout: 5_000 };

let model: FakeModel;
const hosts: MemoryHost[] = [];
let store: RunStore;
beforeAll(async () => {
  model = await startFakeModel();
});
afterAll(() => model.close());
beforeEach(() => {
  store = createMemoryStore();
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  await store.close();
  model.requests.length = 0;
});

/** A host on the test's store (the next one takes the place of one stopped, as after a crash). */
async function agentHost(options: Pick<MemoryHostOptions, "waitMode"> = {}): Promise<MemoryHost> {
  const h = createMemoryHost({
    model: { baseUrl: model.url, model: "m", apiKey: undefined, timeoutMs: 5_000 },
    store,
    ...options,
  });
  hosts.push(h);
  await h.lifecycle.start();
  return h;
}

async function submitAgent(
  h: MemoryHost,
  sessionId: string,
  prompt: string,
  ifBusy: IfBusy = "enqueue",
  client: { name: string }[] = [],
) {
  return h.service.submit({
    sessionId,
    executor: "agent",
    input: { prompt, tools: { shell: false, shellOnInterrupt: "rerun", client }, maxSteps: 16 },
    priority: "normal",
    workspaceId: "default",
    ifBusy,
  });
}

/** A model reply the test holds in flight until it calls `release`. */
function held(reply: Omit<FakeReply, "after">) {
  let release!: () => void;
  const after = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { reply: { ...reply, after }, release };
}

/** A reply calling a tool the agent does not have: answered at once with a refusal, a step all the same. */
const strayCall = (id: string): FakeReply => ({ toolCalls: [{ id, name: "nope", arguments: {} }] });

const userTurns = (request: number) =>
  model.requests[request]!.body.messages.filter((m) => m.role === "user").map((m) => m.content);

describe("steering a running agent (docs/spec.md §5)", () => {
  it("messages sent while a model call runs are in the next call, each once, in order, after what the step answered", async () => {
    const h = await agentHost();
    const first = held(strayCall("c1"));
    model.reply(first.reply, { content: "done" });
    const { run } = await submitAgent(h, "steer-1", "go");
    await expect.poll(() => model.requests.length, POLL).toBe(1);
    const a = await h.service.message(run.id, "also A");
    const b = await h.service.message(run.id, "then B");
    expect(a).toMatchObject({ runId: run.id, status: "running" });
    expect(a.messageId).toBeLessThan(b.messageId);
    first.release();
    await expect.poll(() => h.status(run), POLL).toBe("completed");

    expect(userTurns(0)).toEqual(["go"]);
    const second = model.requests[1]!.body.messages;
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "user"]);
    expect(userTurns(1)).toEqual(["go", "also A", "then B"]);
    expect(model.requests).toHaveLength(2);
    const output = (await h.store.getRun(run.id))!.output as { messages: { content: string | null }[] };
    expect(output.messages.filter((m) => m.content === "also A")).toHaveLength(1);
    // The run's log holds them as its events, in order.
    const events = (await h.store.listRunEvents(run.id, { limit: 100 })).filter(
      (e) => e.type === "run.message",
    );
    expect(events.map((e) => [e.id, e.data])).toEqual([
      [a.messageId, { content: "also A" }],
      [b.messageId, { content: "then B" }],
    ]);
    await expect(h.service.message(run.id, "too late")).rejects.toMatchObject({
      code: "run_already_ended",
      status: 409,
    });
  });

  it("a message sent while the model gives its final answer is answered before the run ends", async () => {
    const h = await agentHost();
    const answer = held({ content: "first answer" });
    model.reply(answer.reply, { content: "second answer" });
    const { run } = await submitAgent(h, "steer-2", "go");
    await expect.poll(() => model.requests.length, POLL).toBe(1);
    await h.service.message(run.id, "one more thing");
    answer.release();
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect(userTurns(1)).toEqual(["go", "one more thing"]);
    expect((await h.store.getRun(run.id))!.output).toMatchObject({ answer: "second answer" });
  });

  it("a message sent during the last call maxSteps allows does not cost the run its answer", async () => {
    const h = await agentHost();
    const answer = held({ content: "the answer" });
    model.reply(answer.reply);
    const { run } = await h.service.submit({
      sessionId: "steer-budget",
      executor: "agent",
      input: { prompt: "go", tools: { shell: false, shellOnInterrupt: "rerun", client: [] }, maxSteps: 1 },
      priority: "normal",
      workspaceId: "default",
      ifBusy: "enqueue",
    });
    await expect.poll(() => model.requests.length, POLL).toBe(1);
    await h.service.message(run.id, "too late for this turn");
    answer.release();
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect((await h.store.getRun(run.id))!.output).toMatchObject({ answer: "the answer" });
    expect(model.requests).toHaveLength(1);
  });

  it("a later attempt neither takes again a message its checkpoint holds nor loses one sent since", async () => {
    const first = await agentHost();
    const call1 = held(strayCall("c1"));
    model.reply(call1.reply, strayCall("c2"), { stall: true });
    const { run } = await submitAgent(first, "steer-3", "go");
    await expect.poll(() => model.requests.length, POLL).toBe(1);
    await first.service.message(run.id, "A");
    call1.release();
    // The third call is in flight when its host stops: its checkpoint names A as taken.
    await expect.poll(() => model.requests.length, POLL).toBe(3);
    expect(userTurns(1)).toEqual(["go", "A"]);
    await first.stop();
    hosts.splice(hosts.indexOf(first), 1);
    await first.service.message(run.id, "B");

    model.reply({ content: "done" });
    const next = await agentHost();
    await expect.poll(() => next.status(run), POLL).toBe("completed");
    expect((await next.store.getRun(run.id))!.attempt).toBe(2);
    expect(userTurns(2)).toEqual(["go", "A"]);
    // The call made again is the one in flight, with B after it: A once, B once.
    expect(model.requests[3]!.body.messages).toEqual([
      ...model.requests[2]!.body.messages,
      { role: "user", content: "B" },
    ]);
  });

  it("ifBusy steer: an agent's prompt joins the session's executing agent run; with none executing, a run of its own", async () => {
    const h = await agentHost();
    const first = held(strayCall("c1"));
    model.reply(first.reply, { content: "done" }, { content: "next turn" });
    const { run } = await submitAgent(h, "steer-4", "go", "steer");
    await expect.poll(() => model.requests.length, POLL).toBe(1);
    const steered = await submitAgent(h, "steer-4", "steered prompt", "steer");
    expect(steered).toMatchObject({
      created: false,
      run: { id: run.id },
      steered: { messageId: expect.any(Number) },
    });
    first.release();
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect(userTurns(1)).toEqual(["go", "steered prompt"]);
    const later = await submitAgent(h, "steer-4", "later", "steer");
    expect(later).toMatchObject({ created: true, run: { seq: 2 } });
    expect(later.steered).toBeUndefined();
    await expect.poll(() => h.status(later.run as Run), POLL).toBe("completed");
    expect(userTurns(2)).toEqual(["go", "steered prompt", "later"]);
  });

  it("a parked agent keeps its messages until its tool answers, then takes them after the answer", async () => {
    const h = await agentHost({ waitMode: "park" });
    model.reply({ toolCalls: [{ id: "w1", name: "weather", arguments: {} }] }, { content: "done" });
    const { run } = await submitAgent(h, "steer-park", "go", "enqueue", [{ name: "weather" }]);
    await expect.poll(async () => (await h.store.getRun(run.id))?.metadata.parked, POLL).toBe(true);
    const posted = await h.service.message(run.id, "while parked");
    expect(posted.status).toBe("waiting_tool");
    // The message does not wake it: it stays parked, no model call made.
    expect(await h.store.getRun(run.id)).toMatchObject({ status: "waiting_tool", workerId: null });
    expect(model.requests).toHaveLength(1);
    await h.service.submitToolResult(run.id, "weather", { sky: "grey" });
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect(
      model.requests[1]!.body.messages.map((m) => [m.role, m.role === "tool" ? "…" : m.content]),
    ).toEqual([
      ["user", "go"],
      ["assistant", null],
      ["tool", "…"],
      ["user", "while parked"],
    ]);
  });
});
