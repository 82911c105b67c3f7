// @module-tag system

import { busySessionsContract } from "@oah/client/busy-sessions-contract";
import { startSplitDeployment } from "@oah/testing";
import { clientOf } from "./support";

/**
 * A busy session's policies in the split deployment (Redis + PostgreSQL, `oah-api --api-only`
 * and two oah-sandbox hosts): the interrupt reaches the host that executes the run over Redis.
 */
busySessionsContract("oah-api and two oah-sandbox hosts (Redis + PostgreSQL)", async (env) => {
  const d = await startSplitDeployment({ sandboxes: 2, env });
  return {
    oah: clientOf(d),
    env: d.env,
    metrics: async () => (await fetch(`${d.api.url}/metrics`)).text(),
    dispose: () => d.dispose(),
  };
});
