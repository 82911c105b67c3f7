import { parseArgs } from "node:util";
import { cliInteger } from "@oah/config";

export interface ControllerCliOptions {
  port?: number;
  help: boolean;
}

export const CONTROLLER_USAGE = `usage: oah-controller [--port N]

Sizes the fleet of oah-sandbox hosts from the global queue pressure; any number may run, one leads.
Needs OAH_REDIS_URL and OAH_DATABASE_URL. Serves /healthz, /readyz, /snapshot, /metrics.

  --port N     port of its server (OAH_CONTROLLER_PORT, default 8790; 0 picks one)

Where it scales (OAH_CONTROLLER_TARGET): process (child processes here, the default),
kubernetes (the /scale of OAH_K8S_KIND OAH_K8S_NAME in OAH_K8S_NAMESPACE), none (publishes only).`;

export function parseControllerArgs(argv: string[]): ControllerCliOptions {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
    strict: true,
  });
  return { port: cliInteger("port", values.port, 0, 65_535), help: values.help };
}
