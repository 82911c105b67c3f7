import { parseArgs } from "node:util";

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

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be ${min}-${max}, got ${value}`);
  return n;
}

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
    slots: integer("slots", values.slots, 1, 1_024),
    host: values.host,
    port: integer("port", values.port, 0, 65_535),
    help: values.help,
  };
}
