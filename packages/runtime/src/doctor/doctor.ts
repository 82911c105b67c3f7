import { ConfigError, loadConfig, type OahConfig } from "@oah/config";
import { type CheckResult, exitCodeOf, formatResult, messageOf } from "./check";
import { checkDataDir, checkNode, checkPort, checkPostgres, checkRedis, checkSqlite } from "./host-checks";
import {
  checkStepCgroup,
  checkTool,
  checkTrialJail,
  checkUserNamespaces,
  checkWorkspaceQuota,
  needsJail,
} from "./jail-checks";

/** Where the doctor is asked: `api` is oah-api with its workers (the embedded default), `api-only` without. */
export type DoctorRole = "api" | "api-only";

/**
 * Checks this host for what the configuration needs, one line per check as it goes, and
 * resolves to the exit code: 0 only when everything needed works.
 */
export async function runDoctor(
  config: OahConfig,
  role: DoctorRole,
  print: (line: string) => void,
): Promise<number> {
  const results: CheckResult[] = [];
  const report = (result: CheckResult | null) => {
    if (!result) return;
    results.push(result);
    print(formatResult(result));
  };
  const jailed = role === "api" && needsJail(config);
  const network = jailed && config.jail.network === "on";
  report(checkNode());
  report(await checkSqlite(config));
  report(checkDataDir(config));
  report(await checkPort("API port", config.host, config.port, "OAH_PORT (or --port)"));
  if (role === "api") {
    report(await checkPort("console port", config.webHost, config.webPort, "OAH_WEB_PORT"));
  }
  report(await checkRedis(config));
  report(await checkPostgres(config));
  if (role === "api" && config.shell !== "unsafe-host") {
    report(checkTool("bwrap", "bubblewrap: the sandbox of commands", jailed));
    for (const tool of ["setpriv", "prlimit", "unshare"]) report(checkTool(tool, "util-linux", jailed));
    if (process.getuid?.() === 0) report(checkTool("mount", "the sandbox's own mounts", jailed));
    report(checkTool("slirp4netns", "the network of steps, OAH_STEP_NETWORK=on", network));
    report(checkTool("ip", "iproute2: the routes of steps' network", network));
    report(checkUserNamespaces(config));
    report(await checkTrialJail(config));
    report(checkStepCgroup(config));
    report(await checkWorkspaceQuota(config));
  }
  const code = exitCodeOf(results);
  print(
    code === 0
      ? "\nEverything this configuration needs works."
      : "\nSomething this configuration needs does not work: see the ✘ lines and their fixes.",
  );
  return code;
}

/**
 * `oah-api doctor`: the configuration from the environment, adjusted by the command line as the
 * host's would be, then the checks; exits with the verdict. A configuration that does not load
 * is the first failure.
 */
export async function doctorCommand(role: DoctorRole, adjust: (config: OahConfig) => void): Promise<never> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  let config: OahConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    print(
      formatResult({
        label: "configuration",
        ok: false,
        needed: true,
        detail: messageOf(error),
        fix: "correct the OAH_* variables named",
      }),
    );
    process.exit(1);
  }
  adjust(config);
  process.exit(await runDoctor(config, role, print));
}
