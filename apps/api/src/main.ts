import { fileURLToPath } from "node:url";
import { ConfigError, describeConfig, isLoopback, loadConfig, type OahConfig } from "@oah/config";
import type { SlotSnapshot } from "@oah/contract";
import { createMetrics, createRuntime, type Runtime, RuntimeError, runHostProcess } from "@oah/runtime";
import { pino } from "pino";
import { API_USAGE, type ApiCliOptions, parseApiArgs } from "./cli";
import { createApiServer } from "./server";

function fail(message: string, code = 1): never {
  process.stderr.write(`oah-api: ${message}\n`);
  process.exit(code);
}

function configure(cli: ApiCliOptions): OahConfig {
  let config: OahConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (cli.host !== undefined) config.host = cli.host;
  if (cli.port !== undefined) config.port = cli.port;
  if (!isLoopback(config.host) && !config.apiToken) {
    fail(`refusing to listen on ${config.host} without OAH_API_TOKEN: set a token or bind to 127.0.0.1`);
  }
  return config;
}

async function main(): Promise<void> {
  let cli: ApiCliOptions;
  try {
    cli = parseApiArgs(process.argv.slice(2));
  } catch (error) {
    fail(`${(error as Error).message}\n${API_USAGE}`, 2);
  }
  if (cli.help) {
    process.stdout.write(`${API_USAGE}\n`);
    return;
  }
  const config = configure(cli);
  const logger = pino({ level: config.logLevel, base: { service: "oah-api" } });
  logger.info({ config: describeConfig(config), apiOnly: cli.apiOnly }, "starting");

  let slots: () => SlotSnapshot[] = () => [];
  const metrics = createMetrics(() => slots());
  let runtime: Runtime;
  try {
    runtime = await createRuntime({
      config,
      role: cli.apiOnly ? "api-only" : "api",
      logger,
      hooks: metrics.hooks,
      migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
    });
  } catch (error) {
    if (error instanceof RuntimeError) fail(error.message);
    throw error;
  }
  const { engine } = runtime;
  slots = () => engine.slots();

  let accepting = false;
  const server = createApiServer({
    engine,
    metrics,
    logger,
    apiToken: config.apiToken,
    maxBodyBytes: config.maxBodyBytes,
    isAccepting: () => accepting,
  });
  await runHostProcess({
    name: "oah-api",
    runtime,
    server,
    host: config.host,
    port: config.port,
    logger,
    setAccepting: (value) => {
      accepting = value;
    },
  });
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
