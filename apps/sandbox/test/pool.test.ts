// @module-tag system

import type { PoolOverview, PoolSnapshot } from "@oah/contract";
import { type SplitDeployment, startSplitDeployment, waitFor, waitForQuiet } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf } from "./support";

const FAST_POOL = {
  OAH_POOL_SCALE_INTERVAL_MS: "200",
  OAH_POOL_SCALE_UP_COOLDOWN_MS: "500",
  OAH_POOL_SCALE_DOWN_COOLDOWN_MS: "1500",
};

async function pool(d: SplitDeployment): Promise<PoolOverview> {
  return clientOf(d).pool();
}

function hostOf(overview: PoolOverview, pid: number | undefined): PoolSnapshot | undefined {
  return overview.hosts.find((h) => h.hostId.includes(`-${pid}-`));
}

describe("elastic pool", () => {
  let d: SplitDeployment | undefined;
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
  });

  it("scales 1 → 4 for a burst of 20 ready sessions and back to 1 after the cooldown", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      env: FAST_POOL,
      sandboxEnv: { OAH_WORKERS_MIN: "1", OAH_WORKERS_MAX: "4" },
    });
    const pid = d.sandboxes[0]!.child.pid;
    const idle = await waitFor("the sandbox's first report", async () => hostOf(await pool(d!), pid));
    expect(idle).toMatchObject({ min: 1, max: 4, desired: 1, activeWorkers: 1, processKind: "standalone" });

    for (let i = 0; i < 20; i++)
      await clientOf(d).submit(`burst-${i}`, { input: { steps: [{ type: "sleep", ms: 400 }] } });
    const scaled = await waitFor("the pool to scale up", async () => {
      const host = hostOf(await pool(d!), pid);
      return host && host.activeWorkers === 4 ? host : undefined;
    });
    expect(scaled.desired).toBe(4);
    await waitForQuiet(d);
    const shrunk = await waitFor(
      "the pool to scale down",
      async () => {
        const host = hostOf(await pool(d!), pid);
        return host && host.activeWorkers === 1 ? host : undefined;
      },
      15_000,
    );
    expect(shrunk.desired).toBe(1);

    const overview = await pool(d);
    const reasons = overview.recentDecisions.filter((x) => x.hostId === shrunk.hostId).map((x) => x.reason);
    expect(reasons).toEqual(expect.arrayContaining(["startup", "scale_up", "scale_down"]));
    const up = overview.recentDecisions.find((x) => x.reason === "scale_up")!;
    expect(up).toMatchObject({ previousDesired: 1, desired: 4, localSuggested: 4 });
    expect(up.pressures.queue).toBeGreaterThanOrEqual(4);
    expect(overview.history.find((h) => h.hostId === shrunk.hostId)?.samples.length).toBeGreaterThan(0);
  }, 60_000);

  it("subtracts healthy remote workers from what a host suggests for itself", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      env: FAST_POOL,
      sandboxEnv: { OAH_WORKERS_MIN: "3", OAH_WORKERS_MAX: "3" },
    });
    const other = await d.addSandbox({ OAH_WORKERS_MIN: "1", OAH_WORKERS_MAX: "4" });
    for (let i = 0; i < 6; i++)
      await clientOf(d).submit(`load-${i}`, { input: { steps: [{ type: "sleep", ms: 2_000 }] } });
    const seen = await waitFor("a suggestion under load", async () => {
      const host = hostOf(await pool(d!), other.child.pid);
      return host && host.remoteActiveWorkers === 3 && host.globalSuggested >= 5 ? host : undefined;
    });
    expect(seen.suggested).toBe(Math.min(4, Math.max(1, seen.globalSuggested - 3)));
    expect(seen.suggested).toBeLessThan(Math.min(4, seen.globalSuggested));
  }, 60_000);
});
