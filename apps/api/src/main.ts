import { fileURLToPath } from "node:url";
import type { SlotSnapshot } from "@oah/contract";
import {
  createHostLogger,
  createMetrics,
  exitWith,
  loadHostConfig,
  openRuntime,
  runHostProcess,
} from "@oah/runtime";
import { API_USAGE, type ApiCliOptions, parseApiArgs } from "./cli";
import { createApiServer } from "./server";

const NAME = "oah-api";

async function main(): Promise<void> {
  let cli: ApiCliOptions;
  try {
    cli = parseApiArgs(process.argv.slice(2));
  } catch (error) {
    exitWith(NAME, `${(error as Error).message}\n${API_USAGE}`, 2);
  }
  if (cli.help) {
    process.stdout.write(`${API_USAGE}\n`);
    return;
  }
  const config = loadHostConfig(NAME, (c) => {
    if (cli.host !== undefined) c.host = cli.host;
    if (cli.port !== undefined) c.port = cli.port;
  });
  const logger = createHostLogger(NAME, config, { apiOnly: cli.apiOnly });

  let slots: () => SlotSnapshot[] = () => [];
  const metrics = createMetrics(() => slots());
  const runtime = await openRuntime(NAME, {
    config,
    role: cli.apiOnly ? "api-only" : "api",
    logger,
    observers: metrics.observers,
    migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
  });
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
    name: NAME,
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

main().catch((error: unknown) => exitWith(NAME, (error as Error).stack ?? String(error)));
