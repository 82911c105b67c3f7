// @module-tag system

import { busySessionsContract } from "@oah/client/busy-sessions-contract";
import { startApi } from "./support";

/** A busy session's policies on the embedded default: one oah-api on SQLite, its queue in process. */
busySessionsContract("oah-api on SQLite", async (env) => {
  const t = await startApi("sqlite", env);
  return {
    oah: t.oah,
    env: t.env,
    metrics: async () => (await fetch(`${t.api.url}/metrics`)).text(),
    dispose: () => t.dispose(),
  };
});
