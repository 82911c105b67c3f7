// @module-tag system

import { durableRunsContract } from "@oah/client/durable-runs-contract";
import { hostPidOf, type OahProcess, startSplitDeployment } from "@oah/testing";
import { expect } from "vitest";
import { clientOf, FAST_RECOVERY } from "./support";

/**
 * Durable runs in the split deployment (Redis + PostgreSQL, `oah-api --api-only` and one
 * oah-sandbox): the sandbox executing the runs killed with SIGKILL, another sandbox started
 * meanwhile recovering them (requeue_running) from their last checkpoint.
 */
durableRunsContract("kill -9 of their sandbox, another one recovering (Redis + PostgreSQL)", async (env) => {
  const d = await startSplitDeployment({
    sandboxes: 1,
    env: {
      ...FAST_RECOVERY,
      // Twice FAST_RECOVERY's lock: its step watchdog (1.2 s without a renewal) is near what a
      // loaded machine delays a renewal by, and a command it kills changes what the model is told.
      OAH_SESSION_LOCK_TTL_MS: "3000",
      OAH_STALE_RUN_AFTER_MS: "3500",
      ...env,
    },
  });
  const oah = clientOf(d);
  return {
    oah,
    env: d.env,
    async crash(...runIds) {
      const hosts = new Set<OahProcess>();
      for (const runId of runIds) {
        const pid = hostPidOf((await oah.get(runId)).workerId);
        const host = d.sandboxes.find((s) => s.child.pid === pid);
        expect(host).toBeDefined();
        hosts.add(host!);
      }
      for (const host of hosts) expect(await host.stop("SIGKILL")).toBe("SIGKILL");
      await d.addSandbox();
    },
    metrics: async () => (await fetch(`${d.sandboxes.at(-1)!.url}/metrics`)).text(),
    dispose: () => d.dispose(),
  };
});
