// @module-tag system

import type { FleetDecision } from "@oah/core";
import { expectAllCompletedInOrder, submitBurst } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "./support";

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.dispose();
  fleet = undefined;
});

describe("oah-controller, process target", () => {
  it("scales a burst of 300 sessions up to the max of 4 sandboxes, and back to 1 once drained", async () => {
    fleet = await startFleet(1, {
      OAH_CONTROLLER_MIN_REPLICAS: "1",
      OAH_CONTROLLER_MAX_REPLICAS: "4",
      OAH_CONTROLLER_SANDBOX_SLOTS: "4",
    });
    const f = fleet;
    await expect.poll(async () => (await f.pool()).hosts.length, { timeout: 20_000 }).toBe(1);
    expect(f.sandboxPids()).toHaveLength(1);

    await submitBurst(f.d, "burst", 300, 1, 1_000);
    let most = 0;
    await expect
      .poll(
        async () => {
          most = Math.max(most, f.sandboxPids().length);
          const { rows } = await f.d.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM runs WHERE status = 'completed'",
          );
          return rows[0]!.n;
        },
        { timeout: 120_000, interval: 250 },
      )
      .toBe(300);
    expect(most).toBe(4);
    // Idle after the cooldown: the controller drains the extra sandboxes, which exit.
    await expect.poll(() => f.sandboxPids().length, { timeout: 60_000 }).toBe(1);
    await expect.poll(async () => (await f.pool()).hosts.length, { timeout: 10_000 }).toBe(1);

    await expectAllCompletedInOrder(f.d, 300);
    await expect
      .poll(async () => (await f.pool()).controller, { timeout: 20_000 })
      .toMatchObject({ target: "process", desiredReplicas: 1, actualReplicas: 1 });
    const { controller } = await f.pool();
    const reasons = new Set(controller!.decisions.map((d: FleetDecision) => d.reason));
    expect(reasons).toContain("scale_up");
    expect(reasons).toContain("scale_down");
    const up = controller!.decisions.find((d) => d.reason === "scale_up")!;
    expect(up.figures.readySessionCount).toBeGreaterThan(0);
    expect(Math.max(...controller!.decisions.map((d) => d.desiredReplicas))).toBe(4);
  });
});

describe("oah-controller and parked runs", () => {
  it("does not grow a fleet whose runs are parked waiting for tool results", async () => {
    fleet = await startFleet(1, {
      OAH_CONTROLLER_MIN_REPLICAS: "1",
      OAH_CONTROLLER_MAX_REPLICAS: "3",
      OAH_CONTROLLER_SANDBOX_SLOTS: "2",
    });
    const f = fleet;
    await expect.poll(async () => (await f.pool()).hosts.length, { timeout: 20_000 }).toBe(1);
    const runs: string[] = [];
    for (let i = 0; i < 40; i++) {
      const { body } = await f.d.client.post<{ run: { id: string } }>(`/api/v1/sessions/parked-${i}/runs`, {
        input: { steps: [{ type: "wait_tool", name: "approve" }] },
      });
      runs.push(body.run.id);
    }
    await expect.poll(async () => (await f.pool()).parkedRuns, { timeout: 30_000 }).toBe(40);
    // Queued, the 40 sessions may have grown the fleet; parked, they hold no slot: it goes back to
    // one sandbox and stays there (held, 40 waiting runs would keep it at its max).
    await expect
      .poll(async () => [(await f.pool()).controller?.desiredReplicas, f.sandboxPids().length], {
        timeout: 60_000,
      })
      .toEqual([1, 1]);
    const seen: number[] = [];
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      const { controller } = await f.pool();
      seen.push(controller?.desiredReplicas ?? 0, f.sandboxPids().length);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(Math.max(...seen)).toBe(1);
    for (const id of runs)
      await f.d.client.post(`/api/v1/runs/${id}/tool-results`, { name: "approve", output: true });
    await expect
      .poll(
        async () => {
          const { rows } = await f.d.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM runs WHERE status = 'completed'",
          );
          return rows[0]!.n;
        },
        { timeout: 60_000 },
      )
      .toBe(40);
  });
});
