import { join } from "node:path";
import type { OahConfig } from "@oah/config";
import type { Run } from "@oah/contract";
import {
  AgentExecutor,
  type CommandRunner,
  type Executor,
  HookRunner,
  HostCommands,
  type Liveness,
  type Logger,
  type ModelEndpoint,
  SandboxedCommands,
  SandboxUnavailable,
  ScriptExecutor,
} from "@oah/engine";

const OUTPUT_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2_000;

/** A clean environment for commands of runs: the host's variables (tokens, database URLs) never reach them. */
function cleanEnv(run: Run, workspaceDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: workspaceDir,
    LANG: "C.UTF-8",
    OAH_RUN_ID: run.id,
    OAH_SESSION_ID: run.sessionId,
    OAH_WORKSPACE_ID: run.workspaceId,
  };
}

/** A startup refusal of the command sandbox, with what to do about it. */
export class CommandsUnavailable extends Error {}

/**
 * Where a worker host runs the commands of runs (OAH_SHELL): in the sandbox, which
 * must be makeable here or the host refuses to start; unconfined with `unsafe-host`;
 * nowhere with `off`, unless OAH_HOOKS has commands, which still run sandboxed.
 */
export async function openCommandRunner(
  config: OahConfig,
  workspaceRoot: string,
  liveness: Liveness | null,
  logger: Logger,
): Promise<CommandRunner | null> {
  const bounds = {
    maxOutputBytes: OUTPUT_LIMIT,
    stopAfterOutputBytes: config.sandbox.limits.maxOutputBytes,
    killGraceMs: KILL_GRACE_MS,
  };
  if (config.shell === "unsafe-host") {
    logger.warn(
      {},
      "OAH_SHELL=unsafe-host: commands of runs run unconfined on this host, as its user, and may outlive their runs; never expose this host",
    );
    return new HostCommands(workspaceRoot, bounds);
  }
  if (config.shell === "off" && !config.hooks.some((h) => h.command)) return null;
  try {
    return await SandboxedCommands.open({
      workspaceRoot,
      hidden: [join(config.dataDir, ".openharness")],
      user: config.sandbox.user,
      network: config.sandbox.network,
      limits: config.sandbox.limits,
      bounds,
      liveness,
      logger,
    });
  } catch (error) {
    if (error instanceof SandboxUnavailable) throw new CommandsUnavailable(error.message);
    throw error;
  }
}

/**
 * The executors a worker host offers, by name. `commands` is null with OAH_SHELL=off:
 * shell and hook steps and the agent's shell tool then fail the run (`shell_disabled`).
 */
export function createExecutors(config: OahConfig, commands: CommandRunner | null): Map<string, Executor> {
  const model: ModelEndpoint = {
    baseUrl: config.model.baseUrl,
    model: config.model.name,
    apiKey: config.model.apiKey,
    timeoutMs: config.modelTimeoutMs,
  };
  const shared = {
    toolTimeoutMs: config.toolTimeoutMs,
    commands,
    shellEnv: ({ run, workspaceDir }: { run: Run; workspaceDir: string }) => cleanEnv(run, workspaceDir),
    model,
  };
  return new Map<string, Executor>([
    ["script", new ScriptExecutor(shared)],
    ["agent", new AgentExecutor(shared)],
  ]);
}

/** The hooks of OAH_HOOKS, each bounded by OAH_HOOK_TIMEOUT_MS unless it sets its own. */
export function createHookRunner(config: OahConfig, commands: CommandRunner | null): HookRunner {
  return new HookRunner({
    hooks: config.hooks,
    timeoutMs: config.hookTimeoutMs,
    commands,
    env: cleanEnv,
  });
}
