// @module-tag system

import type { Rollout } from "@oah/contract";
import { continuousLoad, expectAllCompletedInOrder } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "./support";

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.dispose();
  fleet = undefined;
});

describe("a rolling restart", () => {
  it("replaces every sandbox one at a time under continuous load: nothing lost, nothing run twice, FIFO kept", async () => {
    fleet = await startFleet(1, {
      OAH_CONTROLLER_MIN_REPLICAS: "2",
      OAH_CONTROLLER_MAX_REPLICAS: "2",
      OAH_CONTROLLER_SANDBOX_SLOTS: "2",
    });
    const f = fleet;
    await expect.poll(async () => (await f.pool()).hosts.length, { timeout: 20_000 }).toBe(2);
    const before = (await f.pool()).hosts.map((h) => h.hostId);

    const load = continuousLoad(f.d, "roll", { sessions: 12, ms: 150, pauseMs: 300 });

    const asked = await f.d.client.post<{ rolloutId: string }>("/api/v1/fleet/rollout", {
      requestedBy: "test",
    });
    expect(asked.status).toBe(202);
    const { rolloutId } = asked.body;
    let rollout: Rollout | undefined;
    await expect
      .poll(
        async () => {
          rollout = (await f.d.client.get<Rollout>(`/api/v1/fleet/rollout/${rolloutId}`)).body;
          return rollout.state;
        },
        { timeout: 90_000, interval: 250 },
      )
      .toBe("done");
    const submitted = await load.stop();

    // Asked by the caller (the loopback default's `local`); the name the call gave is only beside it.
    expect(rollout).toMatchObject({ total: 2, replaced: 2, requestedBy: "local", claimedBy: "test" });
    expect(rollout!.steps.map((s) => s.hostId).sort()).toEqual([...before].sort());
    expect(rollout!.steps.every((s) => s.state === "replaced" && s.replacementId !== null)).toBe(true);
    await expect
      .poll(async () => (await f.pool()).hosts.map((h) => h.hostId).sort(), { timeout: 20_000 })
      .toEqual(rollout!.steps.map((s) => s.replacementId).sort());
    expect(f.sandboxPids()).toHaveLength(2);

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
      .toBe(submitted);
    const rows = await expectAllCompletedInOrder(f.d, submitted);
    // Every run executed once: none was handed to recovery by a drain.
    expect(rows.filter((r) => r.attempt !== 1)).toEqual([]);
    expect((await f.d.client.get("/api/v1/fleet/rollout/rollout_00000000000000000000000000")).status).toBe(
      404,
    );
  });
});
