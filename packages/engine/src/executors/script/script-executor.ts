import type { ScriptInput, ScriptStep } from "@oah/contract";
import { sleep, systemClock } from "../../clock";
import { commandValue, refusalOf } from "../../commands/command-runner";
import { RunFailure } from "../../run-failure";
import type { Checkpoint, ExecutionContext, ExecutionResult, Executor, InterruptedStep } from "../executor";
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

/** What a script's checkpoint holds (docs/spec.md §7): the step to run next, and what it has so far. */
interface ScriptCheckpoint extends ScriptState {
  next: number;
}

/** Each step of a script by its type. */
type StepsByType = { [S in ScriptStep as S["type"]]: S };

/** Where a step runs: its place in the script, the run's context, the script's state so far. */
interface StepCall {
  index: number;
  context: ExecutionContext;
  state: ScriptState;
  options: ScriptExecutorOptions;
  /** The checkpoint once this step is done: the script's state as the step leaves it, and the next step. */
  done: () => Checkpoint;
  /** The step an earlier attempt was in when it died, when this step is it: it runs again, and is told so. */
  rerun: InterruptedStep | null;
}

/**
 * What each type of step does, one entry per type: a step schema (STEP_SCHEMAS) without its
 * entry here fails the type check, and a test holds the entries to STEP_TYPES. Every step that
 * completes leaves a checkpoint (with its step's end when it has one) that a later attempt goes
 * on from.
 */
export const STEP_HANDLERS: {
  [T in keyof StepsByType]: (step: StepsByType[T], call: StepCall) => Promise<void>;
} = {
  // A run's own sleep is real time, as are its commands and model calls.
  sleep: async (step, { context, done }) => {
    await sleep(systemClock, step.ms, context.signal);
    await context.journal.checkpoint(done());
  },
  output: async (step, { context, state, done }) => {
    state.output = step.value;
    await context.journal.checkpoint(done());
  },
  fail: async (step, { index }) => {
    throw new RunFailure(
      step.code ?? "executor_failed",
      step.message ?? `script step ${index} failed the run`,
    );
  },
  wait_tool: async (step, { index, context, state, done }) => {
    // A held wait goes on into the same wait on another host, should this one die while it waits.
    await context.journal.checkpoint({ state: { ...state, next: index } satisfies ScriptCheckpoint });
    const progress: ScriptProgress = { ...state, step: index };
    const result = await context.waitForTool(step.name, progress);
    state.toolResults[step.name] = result;
    await recordToolResult(step.name, result, context, done());
  },
  model: async (step, { context, state, options, done }) => {
    const messages = [
      ...(step.system ? [{ role: "system" as const, content: step.system }] : []),
      { role: "user" as const, content: step.prompt },
    ];
    // The answer is the run's output, unless a later output step sets another.
    const reply = await callModel(context, options.model, messages, [], (answer) => {
      state.output = answer.content;
      return done();
    });
    state.output = reply.content;
  },
  hook: async (step, { index, context, options, done, rerun }) => {
    const refused = refusalOf(options.commands);
    if (refused) throw refused;
    await context.runHookCommand(`step ${index}`, step.command, step.timeoutMs, {
      onInterrupt: step.onInterrupt ?? "rerun",
      rerun,
    });
    await context.journal.checkpoint(done());
  },
  shell: async (step, { index, context, state, options, done, rerun }) => {
    // Results of client tools are available to later steps, by file whatever their size.
    const results = commandValue("OAH_TOOL_RESULTS", "tool-results.json", JSON.stringify(state.toolResults));
    const result = await runShellTool(
      {
        command: step.command,
        timeoutMs: step.timeoutMs,
        allowFailure: step.allowFailure,
        origin: { index },
        files: [results.file],
        onInterrupt: step.onInterrupt ?? "rerun",
        rerun,
        checkpointOf: done,
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

/** A client tool's result, once posted, is recorded as a step of the run (with the checkpoint after it). */
async function recordToolResult(
  name: string,
  result: unknown,
  context: ExecutionContext,
  checkpoint: Checkpoint,
): Promise<void> {
  const stepId = await context.journal.startStep("tool", name);
  if (stepId !== null)
    await context.journal.finishStep(stepId, { status: "completed", output: result }, checkpoint);
}

/** The `script` executor of docs/spec.md §12: its steps, in order. */
export class ScriptExecutor implements Executor {
  constructor(private readonly options: ScriptExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const { steps } = context.run.input as ScriptInput;
    const state: ScriptState = { output: null, toolResults: {} };
    const checkpointAfter = (index: number): Checkpoint => ({
      state: { ...state, toolResults: { ...state.toolResults }, next: index + 1 } satisfies ScriptCheckpoint,
    });
    let next = 0;
    let rerun: InterruptedStep | null = null;
    const { resumed } = context;
    if (resumed?.from === "park") {
      // A parked run goes on after the wait_tool step it parked at, its result in hand.
      const { step, output, toolResults } = resumed.state as ScriptProgress;
      const { name } = steps[step] as StepsByType["wait_tool"];
      Object.assign(state, { output, toolResults });
      state.toolResults[name] = resumed.toolResult;
      await recordToolResult(name, resumed.toolResult, context, checkpointAfter(step));
      next = step + 1;
    } else if (resumed?.from === "checkpoint") {
      // An earlier attempt's completed steps are not run again; the one it died in is.
      const { next: at, output, toolResults } = resumed.state as ScriptCheckpoint;
      Object.assign(state, { output, toolResults });
      next = at;
      rerun = resumed.interrupted;
    }
    for (let index = next; index < steps.length; index++) {
      if (context.signal.aborted) break;
      const step = steps[index]!;
      const call = { index, context, state, options: this.options, done: () => checkpointAfter(index) };
      await runStep(step.type, step, { ...call, rerun: index === next ? rerun : null });
    }
    return { output: state.output };
  }
}
