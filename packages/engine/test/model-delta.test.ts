// @module-tag unit

import type { Run, RunEvent } from "@oah/contract";
import type { LiveEvent } from "@oah/coordination";
import { type FakeModel, fakeChunks, startFakeModel } from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryHost, type MemoryHost } from "./memory-host";

const POLL = { timeout: 5_000 };

type Seen = Pick<RunEvent | LiveEvent, "type" | "data">;

/**
 * What a client of the run's stream sees, in order: each live event as it comes, and the
 * stored events each `written` note of its session lets it read. The read is asked for
 * when the note arrives, and the memory store answers from what it holds at that moment.
 */
function watch(h: MemoryHost, run: Run) {
  const notes: (LiveEvent | Promise<RunEvent[]>)[] = [];
  const stop = h.events.subscribe((note) => {
    if (note.kind === "live" && note.event.runId === run.id) notes.push(note.event);
    if (note.kind === "written" && note.sessionIds.includes(run.sessionId)) {
      notes.push(h.store.listRunEvents(run.id, { limit: 1_000 }));
    }
  });
  return async (): Promise<Seen[]> => {
    stop();
    const seen: Seen[] = [];
    let lastId = 0;
    for (const note of notes) {
      if (!(note instanceof Promise)) {
        seen.push(note);
        continue;
      }
      for (const event of await note) {
        if (event.id <= lastId) continue;
        seen.push(event);
        lastId = event.id;
      }
    }
    return seen;
  };
}

interface SeenCall {
  stepId: unknown;
  deltas: string[];
  text: unknown;
}

/**
 * The model calls in what the client saw, each with its deltas (which must come between
 * its model.started and model.completed, of its step, with indexes 0, 1, 2…) and the
 * text its stored completion keeps.
 */
function modelCalls(seen: Seen[]): SeenCall[] {
  const calls: SeenCall[] = [];
  let open: SeenCall | null = null;
  for (const { type, data: maybe } of seen) {
    const data = maybe ?? {};
    if (type === "model.started") {
      expect(open).toBeNull();
      open = { stepId: data.stepId, deltas: [], text: undefined };
    } else if (type === "model.delta") {
      expect(open, "a delta outside a model call").not.toBeNull();
      expect(data).toEqual({ stepId: open!.stepId, index: open!.deltas.length, text: expect.any(String) });
      open!.deltas.push(data.text as string);
    } else if (type === "model.completed") {
      expect(data.stepId).toBe(open!.stepId);
      calls.push({ ...open!, text: data.text });
      open = null;
    }
  }
  expect(open).toBeNull();
  return calls;
}

describe("model.delta live events", () => {
  let model: FakeModel;
  let host: MemoryHost | undefined;

  beforeAll(async () => {
    model = await startFakeModel();
  });
  afterEach(async () => {
    await host?.stop();
    host = undefined;
  });
  afterAll(async () => {
    await model?.close();
  });

  function modelHost(): MemoryHost {
    host = createMemoryHost({
      model: { baseUrl: model.url, model: "fake-1", apiKey: undefined, timeoutMs: 5_000 },
    });
    return host;
  }

  /** Submits the run, then starts the host: its client watches from before its first event of execution. */
  async function execute(h: MemoryHost, sessionId: string, submission: { executor: string; input: unknown }) {
    const { run } = await h.service.submit({
      sessionId,
      priority: "normal",
      workspaceId: "default",
      ifBusy: "enqueue",
      ...submission,
    } as Parameters<MemoryHost["service"]["submit"]>[0]);
    const seen = watch(h, run);
    await h.lifecycle.start();
    return { run, seen };
  }

  it("a model step against a local fake streaming model: the client sees model.delta events in order before model.completed, whose text equals their concatenation", async () => {
    const h = modelHost();
    const content = "The quick brown fox jumps over the lazy dog.";
    model.reply({ content });
    const { run, seen } = await execute(h, "delta-script", {
      executor: "script",
      input: { steps: [{ type: "model", prompt: "Tell me about the fox" }] },
    });
    await expect.poll(() => h.status(run), POLL).toBe("completed");

    const calls = modelCalls(await seen());
    expect(calls).toEqual([{ stepId: expect.any(Number), deltas: fakeChunks(content), text: content }]);
    expect(calls[0]!.deltas.length).toBeGreaterThan(3);
    expect(calls[0]!.deltas.join("")).toBe(calls[0]!.text);
    expect((await h.store.getRun(run.id))?.output).toBe(content);
    const [step] = await h.store.listRunSteps(run.id);
    expect(step).toMatchObject({ id: calls[0]!.stepId, kind: "model", output: { content } });
    // Live events are never stored.
    expect(await h.eventTypes(run)).not.toContain("model.delta");
  });

  it("shows no deltas when the endpoint answers in one piece, and stores the text all the same", async () => {
    const h = modelHost();
    model.reply({ content: "All at once.", whole: true });
    const { run, seen } = await execute(h, "delta-whole", {
      executor: "script",
      input: { steps: [{ type: "model", prompt: "Answer" }] },
    });
    await expect.poll(() => h.status(run), POLL).toBe("completed");

    expect(modelCalls(await seen())).toEqual([
      { stepId: expect.any(Number), deltas: [], text: "All at once." },
    ]);
    expect((await h.store.getRun(run.id))?.output).toBe("All at once.");
  });

  it("streams each model call of an agent turn, before and after a client tool call", async () => {
    const h = modelHost();
    const first = "Let me look that up.";
    const answer = "It is sunny in Lisbon today.";
    model.reply(
      { content: first, toolCalls: [{ id: "call-1", name: "weather", arguments: { city: "Lisbon" } }] },
      { content: answer },
    );
    const { run, seen } = await execute(h, "delta-agent", {
      executor: "agent",
      input: {
        prompt: "What is the weather in Lisbon?",
        tools: { shell: false, client: [{ name: "weather" }] },
        maxSteps: 4,
      },
    });
    await expect.poll(() => h.status(run), POLL).toBe("waiting_tool");
    await h.service.submitToolResult(run.id, "weather", { sky: "clear" });
    await expect.poll(() => h.status(run), POLL).toBe("completed");

    const calls = modelCalls(await seen());
    expect(calls.map((c) => c.deltas)).toEqual([fakeChunks(first), fakeChunks(answer)]);
    expect(calls.map((c) => c.text)).toEqual(calls.map((c) => c.deltas.join("")));
    expect(calls[0]!.stepId).not.toBe(calls[1]!.stepId);
    expect((await h.store.getRun(run.id))?.output).toMatchObject({ answer });
  });
});
