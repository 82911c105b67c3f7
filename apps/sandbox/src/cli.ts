import { parseArgs } from "node:util";
import { cliInteger } from "@oah/config";

export interface SandboxCliOptions {
  slots?: number;
  host?: string;
  port?: number;
  help: boolean;
}

export const SANDBOX_USAGE = `usage: oah-sandbox [--slots N] [--host H] [--port N]

A standalone worker host: executes runs from Redis against the central store.
Needs OAH_REDIS_URL and OAH_DATABASE_URL. Serves only /healthz, /readyz, /metrics.

  --slots N    most workers at once (OAH_WORKERS_MAX, default 16)
  --host H     address of the probe server (OAH_HOST, default 127.0.0.1)
  --port N     port of the probe server (OAH_SANDBOX_PORT, default 8788; 0 picks one)`;

export function parseSandboxArgs(argv: string[]): SandboxCliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      slots: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  return {
    slots: cliInteger("slots", values.slots, 1, 1_024),
    host: values.host,
    port: cliInteger("port", values.port, 0, 65_535),
    help: values.help,
  };
}
