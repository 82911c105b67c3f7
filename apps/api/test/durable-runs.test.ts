// @module-tag system

import { durableRunsContract } from "@oah/client/durable-runs-contract";
import { expect } from "vitest";
import { startApi } from "./support";

/**
 * Durable runs on the embedded default: oah-api killed with SIGKILL and restarted on the same
 * SQLite store. Without Redis one process owns every run: at its start every active run is
 * stale, and recovery requeues it under requeue_running.
 */
durableRunsContract("kill -9 and a restart of oah-api on SQLite", async (env) => {
  const t = await startApi("sqlite", env);
  return {
    get oah() {
      return t.oah;
    },
    env: t.env,
    // The one process executes every run.
    async crash() {
      expect(await t.api.stop("SIGKILL")).toBe("SIGKILL");
      await t.restart();
    },
    metrics: async () => (await fetch(`${t.api.url}/metrics`)).text(),
    dispose: () => t.dispose(),
  };
});
