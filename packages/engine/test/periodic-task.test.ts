// @module-tag unit

import { describe, expect, it } from "vitest";
import { sleep } from "../src/clock";
import { PeriodicTask } from "../src/periodic-task";
import { ManualClock } from "./manual-clock";

describe("a periodic task", () => {
  it("ticks every interval, skips a tick due while one still runs, and runs nothing after stop", async () => {
    const clock = new ManualClock(0);
    const started: number[] = [];
    let ended = 0;
    // Each tick lasts 25 ms: of the ticks due every 10 ms, those falling within one are skipped.
    const task = new PeriodicTask(
      async () => {
        started.push(clock.now());
        await sleep(clock, 25);
        ended++;
      },
      10,
      clock,
    );
    task.start();
    await clock.advance(9);
    expect(started).toEqual([]);
    await clock.advance(61);
    expect(started).toEqual([10, 40, 70]);

    // The tick in flight (from 70) ends before stop resolves; none starts after.
    const stopping = task.stop();
    await clock.advanceUntil(stopping, 5);
    expect(ended).toBe(3);
    await clock.advance(100);
    expect(started).toEqual([10, 40, 70]);
    expect(clock.timers).toBe(0);
  });
});
