import { parseArgs } from "node:util";
import { cliInteger } from "@oah/config";

export interface ApiCliOptions {
  /** `doctor`: check this host for what the configuration needs instead of serving. */
  doctor: boolean;
  apiOnly: boolean;
  host?: string;
  port?: number;
  help: boolean;
}

export const API_USAGE = `usage: oah-api [--api-only] [--host H] [--port N]
       oah-api doctor [--api-only] [--host H] [--port N]

  --api-only   serve the API without workers (needs OAH_REDIS_URL or OAH_REDIS_CLUSTER_NODES, and OAH_DATABASE_URL)
  --host H     address to bind (OAH_HOST, default 127.0.0.1)
  --port N     port to listen on (OAH_PORT, default 8787)
  doctor       check this host for what the configuration needs (Node.js, SQLite, the sandbox of
               commands and its network, ports, Redis and PostgreSQL), one line per check with
               its fix; exits 0 only when everything needed works

Configuration is read from OAH_* environment variables; see docs/operations.md.`;

export function parseApiArgs(argv: string[]): ApiCliOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      "api-only": { type: "boolean", default: false },
      host: { type: "string" },
      port: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const [command, ...rest] = positionals;
  if (rest.length > 0 || (command !== undefined && command !== "doctor")) {
    throw new Error(`unknown command "${positionals.join(" ")}" (the only one is doctor)`);
  }
  const port = cliInteger("port", values.port, 0, 65_535);
  return {
    doctor: command === "doctor",
    apiOnly: values["api-only"],
    host: values.host,
    port,
    help: values.help,
  };
}
