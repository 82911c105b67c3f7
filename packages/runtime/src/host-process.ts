import type { Server } from "node:http";
import type { Logger } from "@oah/engine";
import { exitWith } from "./host-startup";
import type { Runtime } from "./runtime";
import { boundServer } from "./server-bounds";

export interface HostProcessOptions {
  name: string;
  runtime: Runtime;
  server: Server;
  host: string;
  port: number;
  logger: Logger;
  /** Told when the process starts and stops serving (readiness). */
  setAccepting(accepting: boolean): void;
}

/**
 * The life of an oah process: take the port (before recovery touches any run, so
 * that a second process on a taken port fails without side effects), start the
 * engine, serve; on SIGTERM or SIGINT stop accepting, drain, close, exit 0.
 * Prints `<name> listening on <url>` once ready.
 */
export async function runHostProcess(options: HostProcessOptions): Promise<void> {
  const { name, runtime, server, logger } = options;
  let stopping: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting at once");
      process.exit(1);
    }
    logger.info({ signal }, "shutting down: draining runs");
    options.setAccepting(false);
    stopping = (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await runtime.engine.stop();
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

  boundServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  }).catch((error: Error) =>
    exitWith(name, `cannot listen on ${options.host}:${options.port}: ${error.message}`),
  );
  await runtime.engine.start();
  options.setAccepting(true);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`;
  logger.info(
    { url, hostId: runtime.hostId, store: runtime.store.dialect, queue: runtime.queueKind },
    "listening",
  );
  process.stdout.write(`${name} listening on ${url}\n`);
}
