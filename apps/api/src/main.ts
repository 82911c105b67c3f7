import { fileURLToPath } from "node:url";
import { createApiServer } from "@oah/api/http";
import { runHostCommand } from "@oah/runtime";
import { API_USAGE, parseApiArgs } from "./cli";

runHostCommand({
  name: "oah-api",
  usage: API_USAGE,
  parse: parseApiArgs,
  host: (cli) => ({
    role: cli.apiOnly ? "api-only" : "api",
    migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
    adjust: (c) => {
      if (cli.host !== undefined) c.host = cli.host;
      if (cli.port !== undefined) c.port = cli.port;
    },
    port: (c) => c.port,
    logFields: { apiOnly: cli.apiOnly },
    createServer: ({ runtime, config, metrics, logger, isReady }) =>
      createApiServer({
        engine: runtime.engine,
        metrics,
        logger,
        apiTokens: config.apiTokens,
        maxBodyBytes: config.maxBodyBytes,
        streamKeepAliveMs: config.streamKeepAliveMs,
        isReady,
      }),
  }),
});
