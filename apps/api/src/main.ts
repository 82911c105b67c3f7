import { fileURLToPath } from "node:url";
import { ConfigError, describeConfig, isLoopback, loadConfig, type OahConfig } from "@oah/config";
import type { SlotSnapshot } from "@oah/engine";
import { openRunStore, type RunStore } from "@oah/store";
import { pino } from "pino";
import { API_USAGE, type ApiCliOptions, parseApiArgs } from "./cli";
import { createMetrics } from "./metrics";
import { createEmbeddedEngine } from "./runtime";
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
  if (cli.apiOnly)
    fail("--api-only needs the Redis backend (OAH_REDIS_URL), which this version does not have yet");
  if (config.redisUrl) {
    fail("OAH_REDIS_URL is set, but this version runs only the embedded in-process queue; unset it");
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
  logger.info({ config: describeConfig(config) }, "starting");

  let store: RunStore;
  try {
    store = await openRunStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
    });
  } catch (error) {
    fail(
      `cannot open the run store (${config.databaseUrl ? "PostgreSQL" : "SQLite"}): ${(error as Error).message}`,
    );
  }

  let accepting = false;
  let slots: () => SlotSnapshot[] = () => [];
  const metrics = createMetrics(() => slots());
  const runtime = createEmbeddedEngine(config, store, logger, metrics.hooks);
  const { engine } = runtime;
  slots = () => engine.slots();
  const server = createApiServer({
    engine,
    metrics,
    logger,
    apiToken: config.apiToken,
    maxBodyBytes: config.maxBodyBytes,
    isAccepting: () => accepting,
  });

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting at once");
      process.exit(1);
    }
    logger.info({ signal }, "shutting down: draining runs");
    accepting = false;
    stopping = (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await engine.stop();
      await runtime.close();
      await store.close();
      await closed;
      logger.info("stopped");
    })();
    stopping.then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);

  // Both refusals come before recovery touches any run: a second process on the
  // same store, or on a taken port, must not fail the first one's runs.
  await store.acquireExclusiveUse().catch((error: Error) => fail(error.message));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  }).catch((error: Error) => fail(`cannot listen on ${config.host}:${config.port}: ${error.message}`));
  await engine.start();
  accepting = true;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, store: store.dialect, queue: "in-process", workers: config.workersMax }, "listening");
  process.stdout.write(`oah-api listening on ${url}\n`);
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
