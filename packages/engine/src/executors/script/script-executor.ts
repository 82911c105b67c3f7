import type { ScriptInput, ScriptStep } from "@oah/contract";
import { sleep, systemClock } from "../../clock";
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

/** Each step of a script by its type. */
type StepsByType = { [S in ScriptStep as S["type"]]: S };

/** Where a step runs: its place in the script, the run's context, the script's state so far. */
interface StepCall {
  index: number;
  context: ExecutionContext;
  state: ScriptState;
  options: ScriptExecutorOptions;
}

/**
 * What each type of step does, one entry per type: a step schema (STEP_SCHEMAS) without its
 * entry here fails the type check, and a test holds the entries to STEP_TYPES.
 */
export const STEP_HANDLERS: {
  [T in keyof StepsByType]: (step: StepsByType[T], call: StepCall) => Promise<void>;
} = {
  // A run's own sleep is real time, as are its commands and model calls.
  sleep: (step, { context }) => sleep(systemClock, step.ms, context.signal),
  output: async (step, { state }) => {
    state.output = step.value;
  },
  fail: async (step, { index }) => {
    throw new RunFailure(
      step.code ?? "executor_failed",
      step.message ?? `script step ${index} failed the run`,
    );
  },
  wait_tool: async (step, { index, context, state }) => {
    const progress: ScriptProgress = { ...state, step: index };
    const result = await context.waitForTool(step.name, progress);
    state.toolResults[step.name] = await recordToolResult(step.name, result, context);
  },
  model: async (step, { context, state, options }) => {
    const messages = [
      ...(step.system ? [{ role: "system" as const, content: step.system }] : []),
      { role: "user" as const, content: step.prompt },
    ];
    // The answer is the run's output, unless a later output step sets another.
    state.output = (await callModel(context, options.model, messages)).content;
  },
  hook: async (step, { index, context, options }) => {
    const refused = refusalOf(options.commands);
    if (refused) throw refused;
    await context.runHookCommand(`step ${index}`, step.command, step.timeoutMs);
  },
  shell: async (step, { index, context, state, options }) => {
    // Results of client tools are available to later steps, by file whatever their size.
    const results = commandValue("OAH_TOOL_RESULTS", "tool-results.json", JSON.stringify(state.toolResults));
    const result = await runShellTool(
      {
        command: step.command,
        timeoutMs: step.timeoutMs,
        allowFailure: step.allowFailure,
        origin: { index },
        files: [results.file],
      },
      context,
      { ...options.shellEnv(context), ...results.env },
      options,
    );
    if (result.failure) throw result.failure;
  },
};

/** Runs a step by the entry of its type (the type parameter pairs the step with its entry). */
function runStep<T extends keyof StepsByType>(type: T, step: StepsByType[T], call: StepCall): Promise<void> {
  return STEP_HANDLERS[type](step, call);
}

/** A client tool's result, once posted, is recorded as a step of the run. */
async function recordToolResult(name: string, result: unknown, context: ExecutionContext): Promise<unknown> {
  const stepId = await context.journal.startStep("tool", name);
  if (stepId !== null) await context.journal.finishStep(stepId, { status: "completed", output: result });
  return result;
}

/** The `script` executor of docs/spec.md §12: its steps, in order. */
export class ScriptExecutor implements Executor {
  constructor(private readonly options: ScriptExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const { steps } = context.run.input as ScriptInput;
    const state: ScriptState = { output: null, toolResults: {} };
    let next = 0;
    if (context.resumed) {
      // A parked run goes on after the wait_tool step it parked at, its result in hand.
      const { step, output, toolResults } = context.resumed.state as ScriptProgress;
      const { name } = steps[step] as StepsByType["wait_tool"];
      Object.assign(state, { output, toolResults });
      state.toolResults[name] = await recordToolResult(name, context.resumed.toolResult, context);
      next = step + 1;
    }
    for (let index = next; index < steps.length; index++) {
      if (context.signal.aborted) break;
      const step = steps[index]!;
      await runStep(step.type, step, { index, context, state, options: this.options });
    }
    return { output: state.output };
  }
}
