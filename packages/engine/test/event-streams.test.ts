// @module-tag unit

import type { StreamedEvent } from "@oah/contract";
import { type EventBus, type EventNote, LocalEventBus } from "@oah/coordination";
import type { OahError } from "@oah/core";
import { afterEach, describe, expect, it } from "vitest";
import type { StreamItem } from "../src";
import { ManualClock } from "./manual-clock";
import { createMemoryHost, type MemoryHost } from "./memory-host";

let host: MemoryHost | undefined;
let stop: AbortController | undefined;
afterEach(async () => {
  stop?.abort();
  await host?.stop();
  host = undefined;
});

/** Collects a stream's items in the background until it ends or the test aborts it. */
function collect(items: AsyncIterable<StreamItem>) {
  const seen: StreamItem[] = [];
  const done = (async () => {
    for await (const item of items) seen.push(item);
  })();
  return { seen, done, types: () => seen.map((i) => i.event.type) };
}

/** A bus that drops every note: only the streams' periodic reads find the events. */
class DeafBus implements EventBus {
  publish(_note: EventNote): void {}
  subscribe(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

describe("event streams of the engine", () => {
  it("a run's stream gives its events as they are written and ends after its terminal event", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    stop = new AbortController();
    const run = await h.submit("one", "out", { gated: true });
    const stream = collect(await h.streams.openRun(run.id, undefined, stop.signal));
    await expect.poll(stream.types, { timeout: 5_000 }).toContain("run.waiting_tool");
    await h.open(run);
    await stream.done;
    expect(stream.types()).toEqual([
      "run.queued",
      "run.started",
      "run.waiting_tool",
      "run.resumed",
      "run.completed",
    ]);
    // Resumed after its end, the stream of a finished run ends at once.
    const last = stream.seen[stream.seen.length - 1]!;
    const again = collect(await h.streams.openRun(run.id, last.id, stop.signal));
    await again.done;
    expect(again.seen).toEqual([]);
  });

  it("a session's stream resumes exactly after the event it is given", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    stop = new AbortController();
    const runs = [await h.submit("s", 1), await h.submit("s", 2), await h.submit("s", 3)];
    await expect
      .poll(() => h.statuses(runs), { timeout: 5_000 })
      .toEqual(["completed", "completed", "completed"]);
    const whole = collect(await h.streams.openSession("s", undefined, stop.signal));
    await expect.poll(() => whole.seen.length, { timeout: 5_000 }).toBe(9);
    const ids = whole.seen.map((i) => i.id);
    const fromFourth = collect(await h.streams.openSession("s", ids[3], stop.signal));
    await expect.poll(() => fromFourth.seen.map((i) => i.id), { timeout: 5_000 }).toEqual(ids.slice(4));
  });

  it("refuses a run it does not know, and an id that is not one of the stream's events", async () => {
    host = createMemoryHost();
    const h = host;
    await h.lifecycle.start();
    stop = new AbortController();
    const run = await h.submit("cursor", 1);
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: OahError) => e.code,
      );
    expect(await refusal(h.streams.openRun("run_01JZZZZZZZZZZZZZZZZZZZZZZZ", undefined, stop.signal))).toBe(
      "run_not_found",
    );
    expect(await refusal(h.streams.openRun(run.id, 987_654, stop.signal))).toBe("invalid_cursor");
    expect(await refusal(h.streams.openSession("elsewhere", 1, stop.signal))).toBe("invalid_cursor");
  });

  it("without a single note, the periodic read still finds every event (a lost note delays, never loses)", async () => {
    const clock = new ManualClock();
    host = createMemoryHost({ events: new DeafBus(), streams: { pollMs: 50 }, clock });
    const h = host;
    await h.lifecycle.start();
    stop = new AbortController();
    const stream = collect(await h.streams.openSession("deaf", undefined, stop.signal));
    const runs = [await h.submit("deaf", 1), await h.submit("deaf", 2)];
    await expect.poll(() => h.statuses(runs), { timeout: 5_000 }).toEqual(["completed", "completed"]);
    // Nothing reaches the stream until its periodic read.
    await clock.advance(49);
    expect(stream.seen).toEqual([]);
    await clock.advance(1);
    await expect.poll(() => stream.seen.length, { timeout: 5_000 }).toBe(6);
    // All of them, once each, in the order the store wrote them.
    const stored = (await Promise.all(runs.map((r) => h.store.listRunEvents(r.id, { limit: 10 }))))
      .flat()
      .sort((a, b) => a.id - b.id);
    expect(stream.seen.map((i) => i.event)).toEqual(stored);
  });

  it("a note wakes the stream long before its periodic read, and live events come between stored ones", async () => {
    const bus = new LocalEventBus();
    host = createMemoryHost({ events: bus, streams: { pollMs: 60_000 } });
    const h = host;
    await h.lifecycle.start();
    stop = new AbortController();
    const run = await h.submit("awake", 1, { gated: true });
    const stream = collect(await h.streams.openRun(run.id, undefined, stop.signal));
    await expect.poll(stream.types, { timeout: 2_000 }).toContain("run.waiting_tool");
    const delta: StreamedEvent = {
      runId: run.id,
      type: "model.delta",
      at: new Date().toISOString(),
      data: { text: "hi" },
    };
    bus.publish({ kind: "live", event: { ...delta, sessionId: "awake" } as never });
    // Another run's live event is not this stream's.
    bus.publish({ kind: "live", event: { ...delta, runId: "run_other", sessionId: "awake" } as never });
    await expect.poll(() => stream.types().at(-1), { timeout: 2_000 }).toBe("model.delta");
    const waiting = stream.seen.find((i) => i.event.type === "run.waiting_tool")!;
    expect(stream.seen.at(-1)).toEqual({ id: waiting.id, event: delta });
    await h.open(run);
    await stream.done;
    expect(stream.types().slice(-3)).toEqual(["model.delta", "run.resumed", "run.completed"]);
  });
});
