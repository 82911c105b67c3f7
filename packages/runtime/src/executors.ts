import type { OahConfig } from "@oah/config";
import type { Run } from "@oah/contract";
import { AgentExecutor, type Executor, HookRunner, type ModelEndpoint, ScriptExecutor } from "@oah/engine";

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

/** The executors a worker host offers, by name. */
export function createExecutors(config: OahConfig): Map<string, Executor> {
  const model: ModelEndpoint = {
    baseUrl: config.model.baseUrl,
    model: config.model.name,
    apiKey: config.model.apiKey,
    timeoutMs: config.modelTimeoutMs,
  };
  const shared = {
    toolTimeoutMs: config.toolTimeoutMs,
    maxOutputBytes: OUTPUT_LIMIT,
    killGraceMs: KILL_GRACE_MS,
    shellEnv: ({ run, workspaceDir }: { run: Run; workspaceDir: string }) => cleanEnv(run, workspaceDir),
    model,
  };
  return new Map<string, Executor>([
    ["script", new ScriptExecutor(shared)],
    ["agent", new AgentExecutor(shared)],
  ]);
}

/** The hooks of OAH_HOOKS, each bounded by OAH_HOOK_TIMEOUT_MS unless it sets its own. */
export function createHookRunner(config: OahConfig): HookRunner {
  return new HookRunner({
    hooks: config.hooks,
    timeoutMs: config.hookTimeoutMs,
    maxOutputBytes: OUTPUT_LIMIT,
    killGraceMs: KILL_GRACE_MS,
    env: cleanEnv,
  });
}
