// @module-tag unit

import type { RunEvent } from "@oah/contract";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  applyDelta,
  isModelDelta,
  isStored,
  lastEventId,
  mergeEvents,
  settleWriting,
  type Writing,
  writingText,
} from "../src/lib/live/run-stream";
import {
  type LiveSignal,
  type LiveState,
  nextLiveState,
  refreshEvery,
  retriesAfter,
  retryDelayMs,
} from "../src/lib/live/state";
import { throttle } from "../src/lib/live/throttle";

const event = (
  id: number,
  type: RunEvent["type"] = "tool.started",
  data: RunEvent["data"] = null,
): RunEvent => ({
  id,
  runId: "run_1",
  type,
  at: "2026-01-31T12:00:00.000Z",
  data,
});
const delta = (stepId: number, index: number, text: string) => ({
  runId: "run_1",
  type: "model.delta" as const,
  at: "2026-01-31T12:00:01.000Z",
  data: { stepId, index, text },
});

describe("the badge's state", () => {
  const run = (signals: LiveSignal[], from: LiveState = "idle") => signals.reduce(nextLiveState, from);

  it("is connecting until the stream is first held, then live", () => {
    expect(run(["open"])).toBe("connecting");
    expect(run(["open", "started"])).toBe("live");
  });

  it("stays reconnecting through retries until a stream is held again", () => {
    expect(run(["open", "started", "lost"])).toBe("reconnecting");
    expect(run(["open", "started", "lost", "open"])).toBe("reconnecting");
    expect(run(["open", "started", "lost", "open", "lost", "open", "started"])).toBe("live");
    // Never held at all is as good as lost: the page is on its periodic refresh either way.
    expect(run(["open", "lost", "open"])).toBe("reconnecting");
  });

  it("is idle once the stream ended, and connecting again for a new one", () => {
    expect(run(["open", "started", "stopped"])).toBe("idle");
    expect(run(["open", "started", "stopped", "open"])).toBe("connecting");
  });

  it("refreshes periodically in every state but live, and while live after a refetch failed", () => {
    const ok = { state: { status: "success" } };
    const failed = { state: { status: "error" } };
    const states = ["idle", "connecting", "live", "reconnecting"] as const;
    expect(states.map((s) => refreshEvery(s, 3_000)(ok))).toEqual([3_000, 3_000, false, 3_000]);
    expect(states.map((s) => refreshEvery(s, 3_000)(failed))).toEqual([3_000, 3_000, 3_000, 3_000]);
  });

  it("waits longer before each new subscription, up to ten seconds", () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(retryDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it("gives up on a subscription the API refused for good, not on one that could not be held", () => {
    expect(retriesAfter(null)).toBe(true);
    expect(retriesAfter(502)).toBe(true);
    expect(retriesAfter(429)).toBe(true);
    expect(retriesAfter(404)).toBe(false);
    expect(retriesAfter(400)).toBe(false);
  });
});

describe("throttle", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("calls at once after a quiet spell, and once more at the end of a burst", () => {
    const fn = vi.fn();
    const t = throttle(fn, 500);
    t();
    expect(fn).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(40);
      t();
    }
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100);
    expect(fn).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_000);
    expect(fn).toHaveBeenCalledTimes(2);
    t();
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it("calls at most once per window however long the burst", () => {
    const fn = vi.fn();
    const t = throttle(fn, 500);
    for (let i = 0; i < 100; i++) {
      t();
      vi.advanceTimersByTime(50);
    }
    // Calls every 50 ms for 5 s: the first at once, then one as each 500 ms window closes.
    expect(fn).toHaveBeenCalledTimes(11);
  });

  it("calls nothing more once cancelled", () => {
    const fn = vi.fn();
    const t = throttle(fn, 500);
    t();
    t();
    t.cancel();
    vi.advanceTimersByTime(1_000);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe("a run's events from a refetch and from the stream", () => {
  it("are one list in order, whichever came first, each event once", () => {
    const page = { items: [event(1), event(2)], nextCursor: null };
    expect(mergeEvents(page, [event(3)], 10).items.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(mergeEvents(page, [event(2), event(1)], 10)).toEqual(page);
    // A refetch answered before the stream's last event arrived keeps that event.
    const streamed = mergeEvents(page, [event(3), event(4)], 10);
    expect(mergeEvents(streamed, [event(1), event(2), event(3)], 10).items.map((e) => e.id)).toEqual([
      1, 2, 3, 4,
    ]);
    expect(mergeEvents(undefined, [event(5)], 10)).toEqual({ items: [event(5)], nextCursor: null });
  });

  it("stop at the page's limit with the cursor runs.events gives", () => {
    const page = { items: [event(1), event(2)], nextCursor: null };
    expect(mergeEvents(page, [event(3), event(4)], 3)).toEqual({
      items: [event(1), event(2), event(3)],
      nextCursor: 3,
    });
  });

  it("resume after the newest one", () => {
    expect(lastEventId(undefined)).toBeUndefined();
    expect(lastEventId({ items: [], nextCursor: null })).toBeUndefined();
    expect(lastEventId({ items: [event(1), event(7)], nextCursor: null })).toBe(7);
  });
});

describe("the model's text as it is written", () => {
  it("is told from stored events", () => {
    expect(isModelDelta(delta(4, 0, "Hel"))).toBe(true);
    expect(isStored(delta(4, 0, "Hel"))).toBe(false);
    expect(isModelDelta(event(4, "model.completed", { stepId: 4 }))).toBe(false);
    expect(isStored(event(4, "model.completed", { stepId: 4 }))).toBe(true);
    expect(isModelDelta({ ...delta(4, 0, ""), data: { stepId: 4, text: "x" } })).toBe(false);
  });

  it("is the step's parts in order, each once", () => {
    let w: Writing | null = null;
    for (const d of [delta(4, 0, "Hel"), delta(4, 2, "world"), delta(4, 1, "lo, "), delta(4, 1, "lo, ")]) {
      w = applyDelta(w, d);
    }
    expect(w && writingText(w)).toBe("Hello, world");
  });

  it("starts over with the next model step", () => {
    const w = applyDelta(applyDelta(null, delta(4, 0, "first")), delta(6, 0, "second"));
    expect(w).toEqual({ stepId: 6, parts: [{ index: 0, text: "second" }] });
  });

  it("gives way to the stored step when it completes, fails or the run ends", () => {
    const w = applyDelta(null, delta(4, 0, "Hel"));
    expect(settleWriting(w, event(9, "model.completed", { stepId: 4 }))).toBeNull();
    expect(settleWriting(w, event(9, "model.failed", { stepId: 4 }))).toBeNull();
    expect(settleWriting(w, event(9, "run.cancelled"))).toBeNull();
    expect(settleWriting(w, event(9, "model.completed", { stepId: 2 }))).toBe(w);
    expect(settleWriting(w, event(9, "tool.started"))).toBe(w);
    expect(settleWriting(null, event(9, "model.completed", { stepId: 4 }))).toBeNull();
  });
});
