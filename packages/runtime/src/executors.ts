import type { OahConfig } from "@oah/config";
import type { Run } from "@oah/contract";
import {
  AgentExecutor,
  type CommandRunner,
  type Executor,
  HookRunner,
  type ModelEndpoint,
  type ModelLimits,
  ScriptExecutor,
} from "@oah/engine";

/**
 * A clean environment for commands of runs: the host's variables (tokens, database URLs) never
 * reach them. The runner adds HOME: where the command sees its workspace.
 */
function cleanEnv(run: Run): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    OAH_RUN_ID: run.id,
    OAH_SESSION_ID: run.sessionId,
    OAH_WORKSPACE_ID: run.workspaceId,
    // Which attempt of the run this is (docs/spec.md §7): a command made idempotent can tell.
    OAH_ATTEMPT: String(run.attempt),
  };
}

/**
 * The executors a worker host offers, by name. Where `commands` runs none (a NoCommands),
 * shell and hook steps and the agent's shell tool fail the run with its code. Their model calls
 * share the deployment's capacity under OAH_MODEL_LIMITS through `limits.limiter`.
 */
export function createExecutors(
  config: OahConfig,
  commands: CommandRunner,
  limits: Pick<ModelLimits, "limiter" | "observers" | "unreachable" | "clock">,
): Map<string, Executor> {
  const model: ModelEndpoint = {
    baseUrl: config.model.baseUrl,
    model: config.model.name,
    apiKey: config.model.apiKey,
    timeoutMs: config.modelTimeoutMs,
    limits: { ...limits, limits: config.modelLimits, maxWaitMs: config.modelLimitMaxWaitMs },
  };
  const shared = {
    toolTimeoutMs: config.toolTimeoutMs,
    commands,
    shellEnv: ({ run }: { run: Run }) => cleanEnv(run),
    model,
  };
  return new Map<string, Executor>([
    ["script", new ScriptExecutor(shared)],
    ["agent", new AgentExecutor(shared)],
  ]);
}

/** The hooks of OAH_HOOKS, each bounded by OAH_HOOK_TIMEOUT_MS unless it sets its own. */
export function createHookRunner(config: OahConfig, commands: CommandRunner): HookRunner {
  return new HookRunner({
    hooks: config.hooks,
    timeoutMs: config.hookTimeoutMs,
    commands,
    env: cleanEnv,
  });
}
