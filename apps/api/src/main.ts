import { fileURLToPath } from "node:url";
import { createApiServer } from "@oah/api/http";
import type { OahConfig } from "@oah/config";
import { doctorCommand, runHostCommand } from "@oah/runtime";
import { API_USAGE, type ApiCliOptions, parseApiArgs } from "./cli";

const adjust = (cli: ApiCliOptions) => (c: OahConfig) => {
  if (cli.host !== undefined) c.host = cli.host;
  if (cli.port !== undefined) c.port = cli.port;
};

runHostCommand({
  name: "oah-api",
  usage: API_USAGE,
  parse: parseApiArgs,
  instead: (cli) => (cli.doctor ? doctorCommand(cli.apiOnly ? "api-only" : "api", adjust(cli)) : null),
  host: (cli) => ({
    role: cli.apiOnly ? "api-only" : "api",
    migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
    adjust: adjust(cli),
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
        streamCaps: config.streamCaps,
        isReady,
      }),
  }),
});
