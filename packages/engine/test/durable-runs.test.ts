// @module-tag unit

import type { Run, ScriptInput } from "@oah/contract";
import type { RunStore } from "@oah/store";
import { createMemoryStore, type FakeModel, startFakeModel } from "@oah/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMemoryHost, type MemoryHost, type MemoryHostOptions } from "./memory-host";

const POLL = { timeout: 5_000 };
const usage = (total: number) => ({ prompt_tokens: total - 1, completion_tokens: 1, total_tokens: total });

let model: FakeModel;
const hosts: MemoryHost[] = [];
beforeAll(async () => {
  model = await startFakeModel();
});
afterAll(() => model.close());
/** The store the hosts of a test share, as the hosts of a deployment do. */
let store: RunStore;
beforeEach(() => {
  store = createMemoryStore();
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  await store.close();
  model.requests.length = 0;
});

const ENDPOINT = { model: "m", apiKey: undefined, timeoutMs: 5_000 };

async function modelHost(options: Pick<MemoryHostOptions, "recovery"> = {}) {
  const h = createMemoryHost({ model: { baseUrl: model.url, ...ENDPOINT }, store, ...options });
  hosts.push(h);
  await h.lifecycle.start();
  return h;
}

const STEPS: ScriptInput["steps"] = [
  { type: "model", prompt: "first" },
  { type: "model", prompt: "second" },
  { type: "model", prompt: "third" },
];

/**
 * A run of three model steps whose host stops (its drain cut short) while the third call is in
 * flight: its recovery, by the host's strategy, is the drain's.
 */
async function stoppedAtThird(h: MemoryHost): Promise<Run> {
  model.reply({ content: "one", usage: usage(10) }, { content: "two", usage: usage(20) }, { stall: true });
  const { run } = await h.service.submit({
    sessionId: "durable",
    executor: "script",
    input: { steps: STEPS },
    priority: "normal",
    workspaceId: "default",
    ifBusy: "enqueue",
  });
  await expect.poll(() => model.requests.length, POLL).toBe(3);
  await h.stop();
  hosts.splice(hosts.indexOf(h), 1);
  return run;
}

const prompts = () => model.requests.map((r) => r.body.messages.at(-1)?.content);
const resumedEvents = async (h: MemoryHost, run: Run) =>
  (await h.store.listRunEvents(run.id, { limit: 100 })).filter((e) => e.type === "run.resumed");

describe("durable runs: a later attempt goes on from the last checkpoint (docs/spec.md §7)", () => {
  it("on the next host after a crash, makes again only the call in flight, and records what it did not do again", async () => {
    const first = await modelHost();
    const run = await stoppedAtThird(first);
    model.reply({ content: "three", usage: usage(30) });
    const next = await modelHost();
    await expect.poll(() => next.status(run), POLL).toBe("completed");

    expect(prompts()).toEqual(["first", "second", "third", "third"]);
    const done = (await next.store.getRun(run.id))!;
    expect(done.attempt).toBe(2);
    const modelSteps = (await next.store.listRunSteps(run.id)).filter((s) => s.kind === "model");
    // The first attempt's calls stand as they were; the third has a step for each attempt.
    expect(modelSteps.map((s) => s.status)).toEqual(["completed", "completed", "failed", "completed"]);
    const avoided = { steps: { model: 2 }, modelTokens: 30 };
    expect((await resumedEvents(next, run)).map((e) => e.data)).toEqual([
      expect.objectContaining({ fromCheckpoint: true, fromStep: modelSteps[1]!.id, attempt: 2, avoided }),
    ]);
    expect(done.metadata.resumed).toMatchObject({
      attempt: 2,
      fromStep: modelSteps[1]!.id,
      avoided,
      rerun: { stepId: modelSteps[2]!.id, kind: "model" },
    });
    expect(done.output).toBe("three");
    // The call made again is the one in flight, as it was: what came before it is not lost.
    expect(model.requests[3]!.body.messages).toEqual(model.requests[2]!.body.messages);
  });

  it("on an operator's requeue goes on from there, or starts over when asked to", async () => {
    const first = await modelHost({ recovery: { strategy: "fail" } });
    const run = await stoppedAtThird(first);
    const next = await modelHost();
    expect(await next.status(run)).toBe("failed");

    model.reply({ status: 500 });
    await next.service.requeue(run.id, { by: "operator" });
    await expect.poll(() => next.status(run), POLL).toBe("failed");
    expect(prompts()).toEqual(["first", "second", "third", "third"]);
    expect(await resumedEvents(next, run)).toHaveLength(1);

    model.reply({ content: "one" }, { content: "two" }, { content: "three" });
    await next.service.requeue(run.id, { by: "operator", fromStart: true });
    await expect.poll(() => next.status(run), POLL).toBe("completed");
    expect(prompts().slice(4)).toEqual(["first", "second", "third"]);
    // Nothing of the attempts before is gone on from: no new resume, and only the last attempt's checkpoints.
    expect(await resumedEvents(next, run)).toHaveLength(1);
    expect((await next.store.listCheckpoints(run.id)).map((c) => c.attempt)).toEqual([3, 3, 3]);
  });

  it("goes on when the store cannot save a checkpoint that adds nothing to the log, as in an outage", async () => {
    const h = await modelHost();
    h.store.saveCheckpoint = async () => {
      throw new Error("the store is away");
    };
    const { run } = await h.service.submit({
      sessionId: "outage",
      executor: "script",
      input: {
        steps: [
          { type: "sleep", ms: 1 },
          { type: "output", value: "done" },
        ],
      },
      priority: "normal",
      workspaceId: "default",
      ifBusy: "enqueue",
    });
    await expect.poll(() => h.status(run), POLL).toBe("completed");
    expect((await h.store.getRun(run.id))?.output).toBe("done");
  });
});
