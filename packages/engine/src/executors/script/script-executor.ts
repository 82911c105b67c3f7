import type { ScriptInput, ScriptStep, ShellStep } from "@oah/contract";
import { sleep } from "../../abort";
import type { ExecutionContext, ExecutionResult, Executor } from "../executor";
import { RunFailure } from "../executor";
import { runShell } from "../shell";

export interface ScriptExecutorOptions {
  /** Per shell step, unless the step sets `timeoutMs` (OAH_TOOL_TIMEOUT_MS). */
  toolTimeoutMs: number;
  maxOutputBytes: number;
  killGraceMs: number;
  /** The environment of shell steps: a clean one, never the host's (no oah secrets). */
  shellEnv: (context: ExecutionContext) => NodeJS.ProcessEnv;
}

/** The `script` executor of SPEC §12: its steps, in order. */
export class ScriptExecutor implements Executor {
  constructor(private readonly options: ScriptExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const { steps } = context.run.input as ScriptInput;
    let output: unknown = null;
    for (const [index, step] of steps.entries()) {
      if (context.signal.aborted) break;
      output = await this.step(step, index, context, output);
    }
    return { output };
  }

  private async step(
    step: ScriptStep,
    index: number,
    context: ExecutionContext,
    output: unknown,
  ): Promise<unknown> {
    switch (step.type) {
      case "sleep":
        await sleep(step.ms, context.signal);
        return output;
      case "output":
        return step.value;
      case "fail":
        throw new RunFailure(
          step.code ?? "executor_failed",
          step.message ?? `script step ${index} failed the run`,
        );
      case "shell":
        await this.shell(step, index, context);
        return output;
    }
  }

  private async shell(step: ShellStep, index: number, context: ExecutionContext): Promise<void> {
    const { journal } = context;
    const stepId = await journal.startStep("tool", "shell");
    await journal.event("tool.started", { stepId, index, tool: "shell", command: step.command });
    const result = await runShell(step.command, {
      cwd: context.workspaceDir,
      env: this.options.shellEnv(context),
      timeoutMs: step.timeoutMs ?? this.options.toolTimeoutMs,
      signal: context.signal,
      maxOutputBytes: this.options.maxOutputBytes,
      killGraceMs: this.options.killGraceMs,
    });
    const record = {
      command: step.command,
      exitCode: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr,
      truncatedBytes: result.truncatedBytes,
      durationMs: result.durationMs,
    };
    const failure = result.timedOut
      ? new RunFailure("tool_timed_out", `shell step ${index} timed out`)
      : result.aborted
        ? null // the run is ending for another reason, which the worker records
        : result.exitCode !== 0 && !step.allowFailure
          ? new RunFailure(
              "tool_failed",
              `shell step ${index} exited with ${result.exitCode ?? result.signal}`,
            )
          : null;
    const failed = failure !== null || result.aborted;
    if (stepId !== null) {
      await journal.finishStep(stepId, {
        status: failed ? "failed" : "completed",
        output: record,
        ...(failure ? { errorCode: failure.code, errorMessage: failure.message } : {}),
      });
    }
    await journal.event(failed ? "tool.failed" : "tool.completed", {
      stepId,
      index,
      tool: "shell",
      exitCode: result.exitCode,
      ...(failure ? { errorCode: failure.code } : {}),
    });
    if (failure) throw failure;
  }
}
