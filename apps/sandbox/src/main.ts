import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { ConfigError, describeConfig, isLoopback, loadConfig, type OahConfig } from "@oah/config";
import {
  createMetrics,
  createRuntime,
  type Runtime,
  RuntimeError,
  runHostProcess,
  serveProbe,
} from "@oah/runtime";
import { pino } from "pino";
import { parseSandboxArgs, SANDBOX_USAGE, type SandboxCliOptions } from "./cli";

function fail(message: string, code = 1): never {
  process.stderr.write(`oah-sandbox: ${message}\n`);
  process.exit(code);
}

function configure(cli: SandboxCliOptions): OahConfig {
  let config: OahConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (cli.slots !== undefined) {
    config.workersMax = cli.slots;
    config.workersMin = Math.min(config.workersMin, cli.slots);
  }
  if (cli.host !== undefined) config.host = cli.host;
  if (!isLoopback(config.host) && !config.apiToken) {
    fail(
      `refusing to serve /metrics on ${config.host} without OAH_API_TOKEN: set a token or bind to 127.0.0.1`,
    );
  }
  return config;
}

async function main(): Promise<void> {
  let cli: SandboxCliOptions;
  try {
    cli = parseSandboxArgs(process.argv.slice(2));
  } catch (error) {
    fail(`${(error as Error).message}\n${SANDBOX_USAGE}`, 2);
  }
  if (cli.help) {
    process.stdout.write(`${SANDBOX_USAGE}\n`);
    return;
  }
  const config = configure(cli);
  const logger = pino({ level: config.logLevel, base: { service: "oah-sandbox" } });
  logger.info({ config: describeConfig(config) }, "starting");

  let runtime: Runtime | undefined;
  const metrics = createMetrics(() => runtime?.engine.slots() ?? []);
  try {
    runtime = await createRuntime({
      config,
      role: "sandbox",
      logger,
      hooks: metrics.hooks,
      migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
    });
  } catch (error) {
    if (error instanceof RuntimeError) fail(error.message);
    throw error;
  }
  const { engine, store } = runtime;

  let accepting = false;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    serveProbe(req, res, path, {
      metrics,
      apiToken: config.apiToken,
      isReady: async () => accepting && engine.ready && (await store.ping().then(() => true)),
    })
      .then((status) => {
        if (status !== null) return;
        res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
        res.end(
          JSON.stringify({ error: { code: "not_found", message: "a sandbox serves only its probes" } }),
        );
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, "probe failed");
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  await runHostProcess({
    name: "oah-sandbox",
    runtime,
    server,
    host: config.host,
    port: cli.port ?? config.sandboxPort,
    logger,
    setAccepting: (value) => {
      accepting = value;
    },
  });
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
