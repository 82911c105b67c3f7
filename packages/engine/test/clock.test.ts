// @module-tag unit

import { describe, expect, it } from "vitest";
import { settlesWithin, sleep, systemClock } from "../src/clock";
import { ManualClock } from "./manual-clock";

describe("the manual clock of the tests", () => {
  const cases = [
    {
      name: "fires each timer at its own time, in order, those due at once in the order they were set",
      set: [
        ["c", 30],
        ["a", 10],
        ["b", 10],
      ],
      advance: 30,
      fired: ["a@10", "b@10", "c@30"],
    },
    { name: "fires nothing not yet due", set: [["a", 11]], advance: 10, fired: [] },
    { name: "fires a timer of no delay at the next advance", set: [["a", 0]], advance: 0, fired: ["a@0"] },
  ] as const;
  for (const { name, set, advance, fired } of cases) {
    it(name, async () => {
      const clock = new ManualClock(0);
      const seen: string[] = [];
      for (const [timer, ms] of set) clock.setTimeout(() => seen.push(`${timer}@${clock.now()}`), ms);
      await clock.advance(advance);
      expect(seen).toEqual(fired);
      expect(clock.now()).toBe(advance);
    });
  }

  it("repeats an interval until cancelled, and fires a timer set by a timer within the same advance", async () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    const interval = clock.setInterval(() => seen.push(clock.now()), 10);
    clock.setTimeout(() => clock.setTimeout(() => seen.push(-clock.now()), 5), 12);
    await clock.advance(35);
    expect(seen).toEqual([10, -17, 20, 30]);
    interval.cancel();
    await clock.advance(100);
    expect(seen).toEqual([10, -17, 20, 30]);
    expect(clock.timers).toBe(0);
  });

  it("jumps without firing: the timers of a frozen process fire at the next advance", async () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), 10);
    clock.jump(50);
    expect(seen).toEqual([]);
    await clock.advance(0);
    expect(seen).toEqual([50]);
  });
});

describe("sleeps and bounded waits on a clock", () => {
  it("a sleep ends at its time, or at once when its signal aborts, and leaves no timer behind", async () => {
    const clock = new ManualClock(0);
    let slept = false;
    const sleeping = sleep(clock, 100).then(() => (slept = true));
    await clock.advance(99);
    expect(slept).toBe(false);
    await clock.advance(1);
    await sleeping;
    const stop = new AbortController();
    const cut = sleep(clock, 1_000, stop.signal);
    stop.abort();
    await cut;
    expect(clock.timers).toBe(0);
  });

  it("settlesWithin answers whether the work settled before the time was up", async () => {
    const clock = new ManualClock(0);
    const late = settlesWithin(clock, new Promise(() => {}), 50);
    const early = settlesWithin(clock, Promise.reject(new Error("settled all the same")), 50);
    expect(await early).toBe(true);
    await clock.advance(50);
    expect(await late).toBe(false);
    expect(clock.timers).toBe(0);
  });

  it("the system clock is the wall clock", async () => {
    const before = Date.now();
    await sleep(systemClock, 20);
    expect(systemClock.now()).toBeGreaterThanOrEqual(before + 19);
  });
});
