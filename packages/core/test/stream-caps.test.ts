// @module-tag unit

import { describe, expect, it } from "vitest";
import { type HeldStreams, type StreamCap, type StreamCaps, StreamSlots, streamCapPassed } from "../src";

const caps: StreamCaps = { perCaller: 2, perAddress: 3, total: 4 };

describe("the caps of event streams", () => {
  it.each<[string, HeldStreams, StreamCap | null]>([
    ["nothing held", { caller: 0, address: 0, total: 0 }, null],
    ["one below every cap", { caller: 1, address: 2, total: 3 }, null],
    ["the caller at its cap", { caller: 2, address: 0, total: 0 }, "perCaller"],
    ["the address at its cap", { caller: 0, address: 3, total: 3 }, "perAddress"],
    ["everyone at the total", { caller: 0, address: 0, total: 4 }, "total"],
    ["every cap passed: the narrowest is named", { caller: 5, address: 5, total: 5 }, "perCaller"],
    ["callers not told apart: only address and total", { caller: null, address: 2, total: 3 }, null],
    ["callers not told apart, the address full", { caller: null, address: 3, total: 3 }, "perAddress"],
  ])("%s → %s", (_name, held, expected) => {
    expect(streamCapPassed(held, caps)).toBe(expected);
  });

  it("counts slots by caller and address, and gives each back once", () => {
    const slots = new StreamSlots(caps);
    const a1 = slots.take({ caller: "a", address: "10.0.0.1" });
    const a2 = slots.take({ caller: "a", address: "10.0.0.2" });
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(slots.take({ caller: "a", address: "10.0.0.3" })).toEqual({
      ok: false,
      cap: "perCaller",
      limit: 2,
    });
    const b = slots.take({ caller: "b", address: "10.0.0.1" });
    const local = slots.take({ address: "10.0.0.1" });
    expect(slots.take({ caller: "c", address: "10.0.0.1" })).toEqual({
      ok: false,
      cap: "perAddress",
      limit: 3,
    });
    expect(slots.take({ caller: "c", address: "10.0.0.9" })).toEqual({ ok: false, cap: "total", limit: 4 });
    expect(slots.size).toBe(4);
    if (!a1.ok || !b.ok || !local.ok) throw new Error("expected slots");
    a1.release();
    a1.release();
    expect(slots.size).toBe(3);
    expect(slots.take({ caller: "a", address: "10.0.0.1" }).ok).toBe(true);
    b.release();
    local.release();
    expect(slots.size).toBe(2);
  });
});
