import type { ScriptInput, ScriptStep } from "@oah/contract";
import { sleep } from "../../abort";
import { commandValue, refusalOf } from "../../commands/command-runner";
import { RunFailure } from "../../run-failure";
import type { ExecutionContext, ExecutionResult, Executor } from "../executor";
import { callModel } from "../model/model-call";
import type { ModelEndpoint } from "../model/model-client";
import { runShellTool, type ShellToolOptions } from "../tools/shell-tool";

export interface ScriptExecutorOptions extends ShellToolOptions {
  /** The environment of shell steps: a clean one, never the host's (no oah secrets). */
  shellEnv: (context: ExecutionContext) => NodeJS.ProcessEnv;
  model: ModelEndpoint;
}

interface ScriptState {
  output: unknown;
  toolResults: Record<string, unknown>;
}

/** What a script saves when it parks at a wait_tool step: where it is, and what it has so far. */
interface ScriptProgress extends ScriptState {
  /** The index of the wait_tool step it waits at. */
  step: number;
}

/** The `script` executor of SPEC §12: its steps, in order. */
export class ScriptExecutor implements Executor {
  constructor(private readonly options: ScriptExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const { steps } = context.run.input as ScriptInput;
    const state: ScriptState = { output: null, toolResults: {} };
    let next = 0;
    if (context.resumed) {
      // A parked run goes on after the wait_tool step it parked at, its result in hand.
      const { step, output, toolResults } = context.resumed.state as ScriptProgress;
      const { name } = steps[step] as Extract<ScriptStep, { type: "wait_tool" }>;
      Object.assign(state, { output, toolResults });
      state.toolResults[name] = await this.recordToolResult(name, context.resumed.toolResult, context);
      next = step + 1;
    }
    for (let index = next; index < steps.length; index++) {
      if (context.signal.aborted) break;
      await this.step(steps[index]!, index, context, state);
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
      case "wait_tool": {
        const progress: ScriptProgress = { ...state, step: index };
        const result = await context.waitForTool(step.name, progress);
        state.toolResults[step.name] = await this.recordToolResult(step.name, result, context);
        return;
      }
      case "model": {
        const messages = [
          ...(step.system ? [{ role: "system" as const, content: step.system }] : []),
          { role: "user" as const, content: step.prompt },
        ];
        // The answer is the run's output, unless a later output step sets another.
        state.output = (await callModel(context, this.options.model, messages)).content;
        return;
      }
      case "hook": {
        const refused = refusalOf(this.options.commands);
        if (refused) throw refused;
        await context.runHookCommand(`step ${index}`, step.command, step.timeoutMs);
        return;
      }
      case "shell": {
        // Results of client tools are available to later steps, by file whatever their size.
        const results = commandValue(
          "OAH_TOOL_RESULTS",
          "tool-results.json",
          JSON.stringify(state.toolResults),
        );
        const result = await runShellTool(
          {
            command: step.command,
            timeoutMs: step.timeoutMs,
            allowFailure: step.allowFailure,
            origin: { index },
            files: [results.file],
          },
          context,
          { ...this.options.shellEnv(context), ...results.env },
          this.options,
        );
        if (result.failure) throw result.failure;
        return;
      }
    }
  }

  /** A client tool's result, once posted, is recorded as a step of the run. */
  private async recordToolResult(name: string, result: unknown, context: ExecutionContext): Promise<unknown> {
    const stepId = await context.journal.startStep("tool", name);
    if (stepId !== null) await context.journal.finishStep(stepId, { status: "completed", output: result });
    return result;
  }
}
