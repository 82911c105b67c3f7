import { fileURLToPath } from "node:url";
import { NoneTarget, ProcessTarget, runController, type ScaleTarget } from "@oah/controller";
import { CONTROLLER_USAGE, parseControllerArgs } from "./cli";

const NAME = "oah-controller";

function fail(message: string, code: number): never {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(code);
}

let cli: ReturnType<typeof parseControllerArgs>;
try {
  cli = parseControllerArgs(process.argv.slice(2));
} catch (error) {
  fail(`${(error as Error).message}\n${CONTROLLER_USAGE}`, 2);
}

if (cli.help) {
  process.stdout.write(`${CONTROLLER_USAGE}\n`);
} else {
  runController(cli, {
    async createTarget(config, _base, logger): Promise<ScaleTarget> {
      if (config.target === "none") return new NoneTarget();
      if (config.target === "kubernetes") {
        // Loaded only for this target: the others never load the Kubernetes client.
        const { KubernetesTarget } = await import("@oah/controller/kubernetes");
        // Set whenever the target is kubernetes: loadControllerConfig refuses it without them.
        return KubernetesTarget.fromConfig(config.kubernetes!, logger);
      }
      return new ProcessTarget({
        sandboxBin: fileURLToPath(new URL("../../sandbox/bin/oah-sandbox.js", import.meta.url)),
        env: process.env,
        slotsPerSandbox: config.slotsPerSandbox,
        idPrefix: "sandbox",
        logger,
      });
    },
  }).catch((error: unknown) => fail((error as Error).stack ?? String(error), 1));
}
