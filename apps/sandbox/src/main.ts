import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import {
  BearerAuth,
  createHostLogger,
  createMetrics,
  exitWith,
  loadHostConfig,
  openRuntime,
  type Runtime,
  runHostProcess,
  serveProbe,
} from "@oah/runtime";
import { parseSandboxArgs, SANDBOX_USAGE, type SandboxCliOptions } from "./cli";

const NAME = "oah-sandbox";

async function main(): Promise<void> {
  let cli: SandboxCliOptions;
  try {
    cli = parseSandboxArgs(process.argv.slice(2));
  } catch (error) {
    exitWith(NAME, `${(error as Error).message}\n${SANDBOX_USAGE}`, 2);
  }
  if (cli.help) {
    process.stdout.write(`${SANDBOX_USAGE}\n`);
    return;
  }
  const config = loadHostConfig(NAME, (c) => {
    if (cli.slots !== undefined) {
      c.workersMax = cli.slots;
      c.workersMin = Math.min(c.workersMin, cli.slots);
    }
    if (cli.host !== undefined) c.host = cli.host;
  });
  const logger = createHostLogger(NAME, config);

  let runtime: Runtime | undefined;
  const metrics = createMetrics(() => runtime?.engine.slots() ?? []);
  runtime = await openRuntime(NAME, {
    config,
    role: "sandbox",
    logger,
    observers: metrics.observers,
    migrationsDir: fileURLToPath(new URL("./drizzle", import.meta.url)),
  });
  const { engine, store } = runtime;

  const auth = config.apiToken ? new BearerAuth(config.apiToken) : null;
  let accepting = false;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    serveProbe(req, res, path, {
      metrics,
      auth,
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
    name: NAME,
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

main().catch((error: unknown) => exitWith(NAME, (error as Error).stack ?? String(error)));
