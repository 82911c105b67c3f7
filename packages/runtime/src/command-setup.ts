import { lookup } from "node:dns/promises";
import { join } from "node:path";
import { isLoopback, type OahConfig } from "@oah/config";
import type { CommandsAvailability } from "@oah/core";
import {
  type CommandRunner,
  findCgroupHome,
  HostCommands,
  JailedCommands,
  JailUnavailable,
  type Liveness,
  type Logger,
  NoCommands,
} from "@oah/engine";
import type { HostRole } from "./runtime";

const OUTPUT_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2_000;

/** A startup refusal of the command jail, with what to do about it. */
export class CommandsUnavailable extends Error {}

/** How a host runs commands: the runner of its runs' commands, the runner of its hooks, and what it tells of them. */
export interface CommandSetup {
  /** Shell and hook steps, the agent's shell tool: a NoCommands where none run. */
  runs: CommandRunner;
  /** OAH_HOOKS commands: the jail even with OAH_SHELL=off, when there is one. */
  hooks: CommandRunner;
  availability: CommandsAvailability;
  close(): void;
}

const unavailable = (
  code: "shell_disabled" | "commands_unavailable",
  reason: string,
): Extract<CommandsAvailability, { available: false }> => ({ available: false, code, reason });

const SHELL_OFF = unavailable("shell_disabled", "OAH_SHELL=off");

/** The hosts of oah's own services that the configuration names: a step must not reach them. */
export function serviceHosts(
  config: Pick<OahConfig, "redisUrl" | "databaseUrl" | "redisClusterNodes">,
): string[] {
  const hosts = [config.redisUrl, config.databaseUrl].flatMap((url) => {
    if (!url) return [];
    try {
      // A PostgreSQL URL may name no host (a Unix socket): nothing to refuse on the network.
      return [new URL(url).hostname.replace(/^\[|\]$/g, "")].filter(Boolean);
    } catch {
      return [];
    }
  });
  return [...new Set([...hosts, ...(config.redisClusterNodes ?? []).map((n) => n.host)])];
}

/** The IPv4 addresses of the non-loopback service hosts, resolved once, at start. */
async function serviceAddresses(config: OahConfig, logger: Logger): Promise<string[]> {
  const addresses = await Promise.all(
    serviceHosts(config)
      .filter((host) => !isLoopback(host))
      .map((host) =>
        lookup(host, { all: true, family: 4 }).then(
          (found) => found.map((a) => a.address),
          (error: Error) => {
            logger.warn({ host, err: error }, "cannot resolve a service host that steps must not reach");
            return [];
          },
        ),
      ),
  );
  return addresses.flat();
}

/**
 * Where a host runs the commands of runs (OAH_SHELL): in the step jail; unconfined with
 * `unsafe-host`; nowhere with `off`, unless OAH_HOOKS has commands, which still run jailed.
 * Where the jail cannot be made, a worker host (`oah-sandbox`) refuses to start, and so does
 * one with command hooks; the embedded default (`api`) starts with commands unavailable, and
 * says why.
 */
export async function openCommands(
  config: OahConfig,
  role: HostRole,
  workspaceRoot: string,
  liveness: Liveness | null,
  logger: Logger,
): Promise<CommandSetup> {
  const bounds = {
    maxOutputBytes: OUTPUT_LIMIT,
    stopAfterOutputBytes: config.jail.limits.maxOutputBytes,
    killGraceMs: KILL_GRACE_MS,
  };
  const none = (why: Extract<CommandsAvailability, { available: false }>): CommandSetup => {
    const runner = new NoCommands(why);
    return { runs: runner, hooks: runner, availability: why, close: () => {} };
  };
  if (config.shell === "unsafe-host") {
    logger.warn(
      {},
      "OAH_SHELL=unsafe-host: commands of runs run unconfined on this host, as its user, and may outlive their runs; never expose this host",
    );
    const runner = new HostCommands(workspaceRoot, bounds);
    return { runs: runner, hooks: runner, availability: { available: true }, close: () => {} };
  }
  const commandHooks = config.hooks.some((h) => h.command);
  if (config.shell === "off" && !commandHooks) return none(SHELL_OFF);
  const cgroups = findCgroupHome();
  if (!cgroups.home) {
    logger.warn(
      { cause: cgroups.cause, fix: cgroups.fix },
      "each command's sandbox is not capped by a cgroup: its memory is bounded per process only (OAH_STEP_MEMORY_BYTES)",
    );
  }
  let jailed: JailedCommands;
  try {
    jailed = await JailedCommands.open({
      workspaceRoot,
      hidden: [join(config.dataDir, ".openharness")],
      user: config.jail.user,
      network: config.jail.network,
      refusedAddresses: config.jail.network === "on" ? await serviceAddresses(config, logger) : [],
      limits: config.jail.limits,
      cgroups: cgroups.home,
      workspaceMaxBytes: config.jail.workspaceMaxBytes ?? null,
      bounds,
      liveness,
      logger,
    });
  } catch (error) {
    if (!(error instanceof JailUnavailable)) throw error;
    if (role !== "api" || commandHooks || error.configuration) {
      const why = commandHooks ? " (OAH_HOOKS has commands, which need it)" : "";
      throw new CommandsUnavailable(`${error.message}${why}`);
    }
    const { cause, fix } = error.diagnosis;
    return none(unavailable("commands_unavailable", `${cause}. To fix: ${fix}`));
  }
  const runs = config.shell === "off" ? new NoCommands(SHELL_OFF) : jailed;
  return {
    runs,
    hooks: jailed,
    availability: config.shell === "off" ? SHELL_OFF : { available: true },
    close: () => jailed.close(),
  };
}

/** What an API-only process tells of commands: its worker hosts run them, unless OAH_SHELL=off. */
export const apiOnlyCommands = (config: OahConfig): CommandSetup => {
  const availability = config.shell === "off" ? SHELL_OFF : { available: true as const };
  const runner = new NoCommands(unavailable("shell_disabled", "this process runs no runs (--api-only)"));
  return { runs: runner, hooks: runner, availability, close: () => {} };
};
