import type { Run } from "@oah/contract";
import type { HookEvent, OnInterrupt } from "@oah/core";
import { type CommandRunner, commandValue, refusalOf, rerunEnv } from "../commands/command-runner";
import type { InterruptedStep, RunJournal } from "../executors/executor";

/** A hook step's command, as a script gives it: its policy when interrupted, and whether it runs again. */
export interface HookInterrupt {
  onInterrupt: OnInterrupt;
  rerun: InterruptedStep | null;
}

/** A configured hook (OAH_HOOKS): a command run in the run's workspace, or an HTTP endpoint POSTed JSON. */
export interface HookDefinition {
  name?: string;
  on: HookEvent;
  command?: string;
  url?: string;
  timeoutMs?: number;
}

export interface HookRunnerOptions {
  hooks: readonly HookDefinition[];
  /** OAH_HOOK_TIMEOUT_MS, for hooks that set none. */
  timeoutMs: number;
  /** Where hook commands run (the jail of every command); a NoCommands on a host that runs none. */
  commands: CommandRunner;
  /** The environment of hook commands: a clean one, as for shell steps. */
  env: (run: Run) => NodeJS.ProcessEnv;
}

export interface HookTarget {
  run: Run;
  journal: RunJournal;
  workspaceDir: string;
  /** Aborts a hook in progress (the run's signal; none for hooks after the run ended). */
  signal: AbortSignal;
}

/**
 * Runs hooks around a run's life and its tool calls (docs/spec.md §6). A hook never fails
 * the run: a failure or a timeout is recorded as a failed `hook` step with
 * `hook_execution_failed` and a `hook.notice` event, and the run goes on.
 */
export class HookRunner {
  constructor(private readonly options: HookRunnerOptions) {}

  /** Runs every hook configured for `event`, one after the other. */
  async fire(event: HookEvent, target: HookTarget, detail: Record<string, unknown> = {}): Promise<void> {
    for (const hook of this.options.hooks) {
      if (hook.on !== event) continue;
      const name = hook.name ?? `${event} ${hook.command ?? hook.url}`;
      const timeoutMs = hook.timeoutMs ?? this.options.timeoutMs;
      if (hook.command) await this.command(name, hook.command, timeoutMs, target, event, detail);
      else if (hook.url) await this.http(name, hook.url, timeoutMs, target, event, detail);
    }
  }

  /** One hook command (also the `hook` step of the script executor). */
  async command(
    name: string,
    command: string,
    timeoutMs: number | undefined,
    target: HookTarget,
    event: string,
    detail: Record<string, unknown> = {},
    interrupt?: HookInterrupt,
  ): Promise<void> {
    const limit = timeoutMs ?? this.options.timeoutMs;
    await this.record(name, event, target, interrupt?.onInterrupt, async () => {
      const { commands } = this.options;
      const refused = refusalOf(commands);
      if (refused) return { output: { command }, error: refused.message };
      let result: Awaited<ReturnType<CommandRunner["run"]>>;
      // The detail holds the tool's command, which may be large.
      const passed = commandValue("OAH_HOOK_DETAIL", "hook-detail.json", JSON.stringify(detail));
      try {
        result = await commands.run({
          command,
          workspaceDir: target.workspaceDir,
          env: {
            ...this.options.env(target.run),
            OAH_HOOK_EVENT: event,
            ...passed.env,
            ...rerunEnv(interrupt?.rerun),
          },
          files: [passed.file],
          timeoutMs: limit,
          signal: target.signal,
        });
      } catch (error) {
        // A workspace that cannot be used: the hook did not run (and never fails the run).
        return { output: { command }, error: (error as Error).message };
      }
      const output = { command, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
      if (result.timedOut) return { output, error: `the hook did not finish within ${limit} ms` };
      if (result.outputExceeded) return { output, error: "the hook wrote more output than a command may" };
      if (result.exitCode !== 0)
        return { output, error: `the hook exited with ${result.exitCode ?? result.signal}` };
      return { output };
    });
  }

  private async http(
    name: string,
    url: string,
    timeoutMs: number,
    target: HookTarget,
    event: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    const { run } = target;
    await this.record(name, event, target, undefined, async () => {
      const signal = AbortSignal.any([target.signal, AbortSignal.timeout(timeoutMs)]);
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            event,
            run: {
              id: run.id,
              sessionId: run.sessionId,
              workspaceId: run.workspaceId,
              executor: run.executor,
            },
            detail,
          }),
          signal,
        });
        await res.body?.cancel();
        const output = { url, status: res.status };
        return res.ok ? { output } : { output, error: `the hook endpoint answered ${res.status}` };
      } catch (error) {
        const timedOut = (error as Error).name === "TimeoutError";
        return {
          output: { url },
          error: timedOut ? `the hook did not answer within ${timeoutMs} ms` : (error as Error).message,
        };
      }
    });
  }

  private async record(
    name: string,
    event: string,
    target: HookTarget,
    onInterrupt: OnInterrupt | undefined,
    execute: () => Promise<{ output: unknown; error?: string }>,
  ): Promise<void> {
    const { journal } = target;
    const stepId = await journal.startStep("hook", name, onInterrupt ? { onInterrupt } : undefined);
    const { output, error } = await execute();
    if (stepId !== null) {
      await journal.finishStep(stepId, {
        status: error ? "failed" : "completed",
        output,
        ...(error ? { errorCode: "hook_execution_failed", errorMessage: error } : {}),
      });
    }
    if (error) {
      await journal.event("hook.notice", {
        hook: name,
        event,
        errorCode: "hook_execution_failed",
        message: error,
      });
    }
  }
}
