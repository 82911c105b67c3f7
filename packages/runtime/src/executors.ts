import type { OahConfig } from "@oah/config";
import { type Executor, ScriptExecutor } from "@oah/engine";

const SHELL_OUTPUT_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2_000;

/** The executors a worker host offers, by name. */
export function createExecutors(config: OahConfig): Map<string, Executor> {
  const script = new ScriptExecutor({
    toolTimeoutMs: config.toolTimeoutMs,
    maxOutputBytes: SHELL_OUTPUT_LIMIT,
    killGraceMs: KILL_GRACE_MS,
    // A clean environment: the host's variables (tokens, database URLs) never reach a step.
    shellEnv: ({ run, workspaceDir }) => ({
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: workspaceDir,
      LANG: "C.UTF-8",
      OAH_RUN_ID: run.id,
      OAH_SESSION_ID: run.sessionId,
      OAH_WORKSPACE_ID: run.workspaceId,
    }),
  });
  return new Map<string, Executor>([["script", script]]);
}
