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

interface ScriptState {
  output: unknown;
  toolResults: Record<string, unknown>;
}

/** The `script` executor of SPEC §12: its steps, in order. */
export class ScriptExecutor implements Executor {
  constructor(private readonly options: ScriptExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const { steps } = context.run.input as ScriptInput;
    const state: ScriptState = { output: null, toolResults: {} };
    for (const [index, step] of steps.entries()) {
      if (context.signal.aborted) break;
      await this.step(step, index, context, state);
    }
    return { output: state.output };
  }

  private async step(
    step: ScriptStep,
    index: number,
    context: ExecutionContext,
    state: ScriptState,
  ): Promise<void> {
    switch (step.type) {
      case "sleep":
        await sleep(step.ms, context.signal);
        return;
      case "output":
        state.output = step.value;
        return;
      case "fail":
        throw new RunFailure(
          step.code ?? "executor_failed",
          step.message ?? `script step ${index} failed the run`,
        );
      case "wait_tool":
        state.toolResults[step.name] = await this.waitTool(step.name, context);
        return;
      case "shell":
        await this.shell(step, index, context, state);
        return;
    }
  }

  /** A client tool: the run waits in `waiting_tool` until its result is posted, then records it as a step. */
  private async waitTool(name: string, context: ExecutionContext): Promise<unknown> {
    const result = await context.waitForTool(name);
    const stepId = await context.journal.startStep("tool", name);
    if (stepId !== null) await context.journal.finishStep(stepId, { status: "completed", output: result });
    return result;
  }

  private async shell(
    step: ShellStep,
    index: number,
    context: ExecutionContext,
    state: ScriptState,
  ): Promise<void> {
    const { journal } = context;
    const stepId = await journal.startStep("tool", "shell");
    await journal.event("tool.started", { stepId, index, tool: "shell", command: step.command });
    const result = await runShell(step.command, {
      cwd: context.workspaceDir,
      // Results of client tools are available to later steps.
      env: { ...this.options.shellEnv(context), OAH_TOOL_RESULTS: JSON.stringify(state.toolResults) },
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
