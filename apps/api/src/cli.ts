import { parseArgs } from "node:util";
import { cliInteger } from "@oah/config";

export interface ApiCliOptions {
  apiOnly: boolean;
  host?: string;
  port?: number;
  help: boolean;
}

export const API_USAGE = `usage: oah-api [--api-only] [--host H] [--port N]

  --api-only   serve the API without workers (needs OAH_REDIS_URL or OAH_REDIS_CLUSTER_NODES, and OAH_DATABASE_URL)
  --host H     address to bind (OAH_HOST, default 127.0.0.1)
  --port N     port to listen on (OAH_PORT, default 8787)

Configuration is read from OAH_* environment variables; see docs/operations.md.`;

export function parseApiArgs(argv: string[]): ApiCliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      "api-only": { type: "boolean", default: false },
      host: { type: "string" },
      port: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  const port = cliInteger("port", values.port, 0, 65_535);
  return { apiOnly: values["api-only"], host: values.host, port, help: values.help };
}
