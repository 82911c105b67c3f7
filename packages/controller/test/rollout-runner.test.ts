// @module-tag unit

import type { Rollout } from "@oah/contract";
import type { FleetHost } from "@oah/core";
import { silentLogger } from "@oah/engine";
import { describe, expect, it } from "vitest";
import { type RolloutBook, RolloutRunner } from "../src/rollout-runner";
import type { LeaderActs } from "../src/targets/scale-target";

const pending = (): Rollout => ({
  rolloutId: "rollout_1",
  state: "pending",
  requestedBy: null,
  requestedAt: 0,
  startedAt: null,
  finishedAt: null,
  steps: [],
  replaced: 0,
  total: 0,
  message: null,
});

const host = (hostId: string, state: FleetHost["state"] = "active"): FleetHost => ({
  hostId,
  state,
  healthy: true,
  busySlots: 0,
});

/** A book holding one rollout, and a leader that records its orders. */
function fixture(refusal: string | null = null) {
  let current: Rollout | null = pending();
  const book: RolloutBook = {
    currentRollout: async () => (current ? structuredClone(current) : null),
    saveRollout: async (_fence, rollout) => {
      current = rollout.state === "done" || rollout.state === "failed" ? null : structuredClone(rollout);
      saved.push(structuredClone(rollout));
      return true;
    },
  };
  const saved: Rollout[] = [];
  const orders: [string, string | null][] = [];
  const leader: LeaderActs = {
    stillLeads: async () => true,
    order: async (hostId, order) => {
      orders.push([hostId, order]);
      return true;
    },
  };
  const runner = new RolloutRunner({ book, refusal, logger: silentLogger });
  return { runner, leader, saved, orders, last: () => saved[saved.length - 1] };
}

describe("RolloutRunner", () => {
  it("replaces the sandboxes one at a time: one more, then the old one drained, then the next", async () => {
    const f = fixture();
    const advance = (hosts: FleetHost[], now: number) => f.runner.advance(hosts, f.leader, "fence", now);
    const table: [FleetHost[], { surge: number; draining: string | null }, string][] = [
      [[host("a"), host("b")], { surge: 1, draining: null }, "a starting"],
      [[host("a"), host("b")], { surge: 1, draining: null }, "a starting"],
      [[host("a"), host("b"), host("c")], { surge: 0, draining: "a" }, "a draining → c"],
      [[host("a", "draining"), host("b"), host("c")], { surge: 0, draining: "a" }, "a draining → c"],
      [[host("a", "drained"), host("b"), host("c")], { surge: 1, draining: null }, "b starting"],
      [[host("b"), host("c"), host("d")], { surge: 0, draining: "b" }, "b draining → d"],
      [[host("c"), host("d")], { surge: 0, draining: null }, "done"],
    ];
    for (const [i, [hosts, answer]] of table.entries()) expect(await advance(hosts, i)).toEqual(answer);
    expect(f.last()).toMatchObject({ state: "done", total: 2, replaced: 2, finishedAt: 6 });
    expect(f.last()!.steps).toEqual([
      { hostId: "a", replacementId: "c", state: "replaced" },
      { hostId: "b", replacementId: "d", state: "replaced" },
    ]);
    expect(new Set(f.orders.map(([h, o]) => `${h} ${o}`))).toEqual(new Set(["a drain", "b drain"]));
  });

  it("counts a sandbox gone before its turn as replaced, with no replacement", async () => {
    const f = fixture();
    await f.runner.advance([host("a"), host("b")], f.leader, "fence", 0);
    await f.runner.advance([host("a"), host("c")], f.leader, "fence", 1);
    await f.runner.advance([host("c")], f.leader, "fence", 2);
    expect(f.last()).toMatchObject({ state: "done", replaced: 2 });
    expect(f.last()!.steps[1]).toEqual({ hostId: "b", replacementId: null, state: "replaced" });
  });

  it("fails at once, saying why, where the target cannot roll out", async () => {
    const f = fixture("the none target starts no sandboxes");
    expect(await f.runner.advance([host("a")], f.leader, "fence", 5)).toEqual({ surge: 0, draining: null });
    expect(f.last()).toMatchObject({
      state: "failed",
      finishedAt: 5,
      message: "the none target starts no sandboxes",
    });
    expect(f.orders).toEqual([]);
  });

  it("fails when no replacement comes up in time", async () => {
    const f = fixture();
    await f.runner.advance([host("a")], f.leader, "fence", 0);
    expect((await f.runner.advance([host("a")], f.leader, "fence", 120_001)).surge).toBe(0);
    expect(f.last()).toMatchObject({ state: "failed", message: "no replacement for a came up in time" });
  });
});
