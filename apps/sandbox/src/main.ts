import { fileURLToPath } from "node:url";
import { createProbeServer } from "@oah/api/http";
import { runHostCommand } from "@oah/runtime";
import { parseSandboxArgs, SANDBOX_USAGE } from "./cli";

runHostCommand({
  name: "oah-sandbox",
  usage: SANDBOX_USAGE,
  parse: parseSandboxArgs,
  host: (cli) => ({
    role: "sandbox",
    migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
    adjust: (c) => {
      if (cli.slots !== undefined) {
        c.workersMax = cli.slots;
        c.workersMin = Math.min(c.workersMin, cli.slots);
      }
      if (cli.host !== undefined) c.host = cli.host;
    },
    port: (c) => cli.port ?? c.sandboxPort,
    createServer: ({ runtime, config, metrics, logger, isReady }) =>
      createProbeServer({
        metrics,
        apiTokens: config.apiTokens,
        isReady,
        commands: runtime.commands,
        logger,
      }),
  }),
});
