import type { Server } from "node:http";
import type { OahConfig } from "@oah/config";
import type { Logger } from "@oah/engine";
import { createHostLogger, exitWith, loadHostConfig, openRuntime } from "./host-startup";
import { createMetrics, type Metrics } from "./metrics";
import type { HostRole, Runtime } from "./runtime";

/** What a host's HTTP server is made from. */
export interface HostParts {
  runtime: Runtime;
  config: OahConfig;
  metrics: Metrics;
  logger: Logger;
  /** Started, not draining, and the store answers (/readyz). */
  isReady: () => Promise<boolean>;
}

/** One kind of oah process: what its main knows that the boot sequence does not. */
export interface HostSpec {
  /** The command's name, in its messages and logs. */
  name: string;
  role: HostRole;
  /** The folder of the `pg/` and `sqlite/` migrations, beside the app's bundle. */
  migrationsDir: string;
  /** What the command line changes in the configuration read from the environment. */
  adjust(config: OahConfig): void;
  port(config: OahConfig): number;
  /** Extra fields of the "starting" log line. */
  logFields?: Record<string, unknown>;
  /** The process's HTTP server (the API, or the probes alone), not listening yet. */
  createServer(parts: HostParts): Server;
}

/**
 * The life of an oah process: its configuration (refused when it would expose the
 * process without a token), its logger and metrics, its runtime; then it takes the
 * port (before recovery touches any run, so that a second process on a taken port
 * fails without side effects), starts the engine, serves; on SIGTERM or SIGINT it
 * stops accepting, drains, closes, exits 0. Prints `<name> listening on <url>` once ready.
 */
export async function runHost(spec: HostSpec): Promise<void> {
  const { name } = spec;
  const config = loadHostConfig(name, spec.adjust);
  const logger = createHostLogger(name, config, spec.logFields);
  let runtime: Runtime | undefined;
  const metrics = createMetrics({
    slots: () => runtime?.engine.lifecycle.slots() ?? [],
    openStreams: () => runtime?.engine.streams.openStreams ?? 0,
    commands: () => runtime?.commands ?? null,
    namedWorkspaces: [
      "default",
      ...Object.keys(config.fairShare.weights),
      ...Object.keys(config.fairShare.caps),
    ],
    ...(spec.role === "sandbox"
      ? {}
      : {
          workload: async () =>
            runtime ? runtime.engine.fleet.workload() : { parkedRuns: 0, workspaces: [] },
          jams: async () => runtime?.engine.jams.counts() ?? null,
        }),
  });
  runtime = await openRuntime(name, {
    config,
    role: spec.role,
    logger,
    observers: metrics.observers,
    migrationsDir: spec.migrationsDir,
  });
  if (!runtime.commands.available && runtime.commands.code === "commands_unavailable") {
    // Loud on purpose: the host serves, but a whole kind of run is refused until this is fixed.
    process.stderr.write(
      `${name}: commands of runs are unavailable on this host: ${runtime.commands.reason}. ` +
        "Runs without commands work; shell steps, hook steps and the agent's shell tool are refused (400 commands_unavailable).\n",
    );
    logger.warn({ reason: runtime.commands.reason }, "commands of runs are unavailable on this host");
  }
  const { lifecycle } = runtime.engine;
  const { store } = runtime;
  let accepting = false;
  const server = spec.createServer({
    runtime,
    config,
    metrics,
    logger,
    isReady: async () => accepting && lifecycle.ready && (await store.ping().then(() => true)),
  });

  let stopping: Promise<void> | undefined;
  // A signal, or this worker host drained under a drain order (OAH_EXIT_WHEN_DRAINED).
  const shutdown = (signal: NodeJS.Signals | "drained") => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting at once");
      process.exit(1);
    }
    logger.info({ signal }, "shutting down: draining runs");
    accepting = false;
    stopping = (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await lifecycle.stop();
      await runtime.close();
      await closed;
      logger.info({}, "stopped");
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

  const port = spec.port(config);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, config.host, () => resolve());
  }).catch((error: Error) => exitWith(name, `cannot listen on ${config.host}:${port}: ${error.message}`));
  await lifecycle.start();
  accepting = true;
  if (config.exitWhenDrained) lifecycle.onDrained(() => shutdown("drained"));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${bound}`;
  logger.info(
    { url, hostId: runtime.hostId, store: runtime.store.dialect, queue: runtime.queueKind },
    "listening",
  );
  process.stdout.write(`${name} listening on ${url}\n`);
}

/** An oah command: its command line, and the host it runs. */
export interface HostCommand<Cli extends { help: boolean }> {
  name: string;
  usage: string;
  /** Throws with a message for the operator on a bad command line. */
  parse(argv: string[]): Cli;
  /** Another command than serving, when the command line asks for one (`oah-api doctor`); null: serve. */
  instead?(cli: Cli): Promise<never> | null;
  host(cli: Cli): Omit<HostSpec, "name">;
}

/** The main of an oah command: bad arguments exit 2 with the usage, --help prints it, else runHost. */
export function runHostCommand<Cli extends { help: boolean }>(command: HostCommand<Cli>): void {
  const { name, usage } = command;
  let cli: Cli;
  try {
    cli = command.parse(process.argv.slice(2));
  } catch (error) {
    exitWith(name, `${(error as Error).message}\n${usage}`, 2);
  }
  if (cli.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const other = command.instead?.(cli);
  (other ?? runHost({ name, ...command.host(cli) })).catch((error: unknown) =>
    exitWith(name, (error as Error).stack ?? String(error)),
  );
}
