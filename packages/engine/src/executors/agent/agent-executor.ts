import type { AgentInput } from "@oah/contract";
import { refusalOf } from "../../commands/command-runner";
import { RunFailure } from "../../run-failure";
import type { Checkpoint, ExecutionContext, ExecutionResult, Executor, InterruptedStep } from "../executor";
import { callModel } from "../model/model-call";
import type { ChatMessage, ModelEndpoint, ModelReply, ToolCall, ToolSpec } from "../model/model-client";
import { runShellTool, type ShellToolOptions } from "../tools/shell-tool";
import {
  type CarriedFrom,
  carriedPart,
  closingOf,
  conversationOf,
  interruptedEnd,
  type ReadRun,
} from "./conversation";

export interface AgentExecutorOptions extends ShellToolOptions {
  /** The environment of shell tool calls: a clean one, never the host's. */
  shellEnv: (context: ExecutionContext) => NodeJS.ProcessEnv;
  model: ModelEndpoint;
}

/** What an agent run leaves as its output: the answer, and the conversation the session's next run goes on from. */
export interface AgentOutput {
  answer: string;
  messages: ChatMessage[];
}

const SHELL_TOOL: ToolSpec = {
  type: "function",
  function: {
    name: "shell",
    description: "Runs a shell command in the workspace and returns its exit code, stdout and stderr.",
    parameters: {
      type: "object",
      properties: { command: { type: "string", description: "The command, run by /bin/sh -c" } },
      required: ["command"],
    },
  },
};

function toolSpecs(tools: AgentInput["tools"]): ToolSpec[] {
  return [
    ...(tools.shell ? [SHELL_TOOL] : []),
    ...tools.client.map(
      (t): ToolSpec => ({
        type: "function",
        function: {
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          parameters: (t.parameters as Record<string, unknown> | undefined) ?? {
            type: "object",
            properties: {},
          },
        },
      }),
    ),
  ];
}

function parseArguments(call: ToolCall): Record<string, unknown> | null {
  try {
    const value = JSON.parse(call.function.arguments || "{}") as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Where an agent is in its loop: what it goes on from. */
interface AgentProgress {
  /** The conversation carried from the session's earlier run, read from it, never logged again. */
  carried: ChatMessage[];
  /** Where `carried` comes from; null when nothing is carried. */
  from: CarriedFrom | null;
  /** What this run adds to the conversation: its prompt, the replies and the tool answers. */
  messages: ChatMessage[];
  /** Model calls made so far. */
  calls: number;
  /** The tool calls of the last reply still to answer; when parked, the first is the one waited for. */
  pending: ToolCall[];
  /** How many of this run's messages its checkpoints hold already: the next appends the rest. */
  logged: number;
  /** The id of the last message sent to the run that it took into its conversation (0: none). */
  steered: number;
}

/**
 * What an agent saves when it parks: its progress, naming the carried conversation instead of
 * holding it. One parked by an earlier version names none: its `messages` are the whole
 * conversation (and it may have no `logged`: its checkpoints hold none of it).
 */
type ParkedAgent = Omit<AgentProgress, "carried" | "from" | "logged" | "steered"> & {
  carried?: CarriedFrom;
  logged?: number;
  steered?: number;
};

/**
 * What an agent's checkpoint holds (docs/spec.md §7): the calls made, the tool calls still to
 * answer, where the carried conversation comes from and the last message sent to the run that it
 * took (none: 0); this run's messages are the run's log, appended to. One written by an earlier
 * version names no carried part: its log is the whole conversation.
 */
interface AgentCheckpoint {
  calls: number;
  pending: ToolCall[];
  carried?: CarriedFrom;
  steered?: number;
}

/** The whole conversation: the carried part, then this run's. */
const conversation = (progress: AgentProgress): ChatMessage[] => [...progress.carried, ...progress.messages];

/** The reference to the carried part and the last message taken, as a checkpoint or a parked state holds them. */
const carriedRef = (progress: AgentProgress) => ({
  ...(progress.from ? { carried: progress.from } : {}),
  ...(progress.steered > 0 ? { steered: progress.steered } : {}),
});

const assistantMessage = (reply: ModelReply): ChatMessage => ({
  role: "assistant",
  content: reply.content || null,
  ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
});

/**
 * The checkpoint once `added` (the reply, or a tool's answer) joins the conversation: the calls
 * and pending tool calls then, and the messages the log does not have yet.
 */
function checkpointOf(progress: AgentProgress, added: ChatMessage, next: AgentCheckpoint): Checkpoint {
  const state: AgentCheckpoint = { calls: next.calls, pending: next.pending, ...carriedRef(progress) };
  return { state, appended: [...progress.messages.slice(progress.logged), added] };
}

const toolMessage = (call: ToolCall, result: unknown): ChatMessage => ({
  role: "tool",
  tool_call_id: call.id,
  content: JSON.stringify(result),
});

/**
 * The `agent` executor: the loop an agent harness expects. It sends the
 * conversation (the session's earlier turns, closed if the last was cut short, then this
 * prompt) to the model,
 * executes the tool calls the model asks for (the shell tool, and client tools
 * that put the run in `waiting_tool` until their result is posted), feeds the
 * results back, and stops on a final answer or when the step budget is spent.
 * A run parked at a client tool goes on from the conversation it saved.
 */
export class AgentExecutor implements Executor {
  constructor(private readonly options: AgentExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const input = context.run.input as AgentInput;
    const refused = input.tools.shell ? refusalOf(this.options.commands) : null;
    if (refused) throw refused;
    const { resumed } = context;
    const read: ReadRun = (runId) => context.carriedRun(runId);
    const progress =
      resumed?.from === "park"
        ? await this.resumeParked(context, read)
        : resumed?.from === "checkpoint"
          ? await fromCheckpoint(resumed.state as AgentCheckpoint, resumed.log as ChatMessage[], read)
          : await this.begin(input, context, read);
    // The shell call an earlier attempt was running when it died: it runs again, and is told so.
    let rerun =
      resumed?.from === "checkpoint" && resumed.interrupted?.kind === "tool" ? resumed.interrupted : null;
    const tools = toolSpecs(input.tools);
    // Whether the messages sent to the run were read for the next model call already.
    let taken = false;
    for (;;) {
      while (progress.pending.length > 0) {
        const call = progress.pending[0]!;
        await this.toolCall(call, input, context, progress, rerun);
        rerun = null;
      }
      if (!taken) await takeMessages(context, progress);
      taken = false;
      if (progress.calls >= input.maxSteps) {
        throw new RunFailure(
          "executor_failed",
          `the model gave no final answer within ${input.maxSteps} calls`,
        );
      }
      const reply = await callModel(context, this.options.model, conversation(progress), tools, (answer) =>
        checkpointOf(progress, assistantMessage(answer), {
          calls: progress.calls + 1,
          pending: answer.toolCalls,
        }),
      );
      progress.calls++;
      progress.messages.push(assistantMessage(reply));
      progress.logged = progress.messages.length;
      if (reply.toolCalls.length === 0) {
        // A message sent while the model answered is answered too before the run ends, if the
        // budget leaves a call for it: an answer had is never given up for a failure.
        taken = progress.calls < input.maxSteps && (await takeMessages(context, progress));
        if (taken) continue;
        const output: AgentOutput = { answer: reply.content, messages: conversation(progress) };
        return { output };
      }
      progress.pending = [...reply.toolCalls];
    }
  }

  /**
   * The conversation so far (the session's earlier turns, carried by reference from the run this
   * one goes on from), and this run's prompt. The run's own messages begin with what closes the
   * carried conversation when that run was cut short: written once, in this run's log.
   */
  private async begin(input: AgentInput, context: ExecutionContext, read: ReadRun): Promise<AgentProgress> {
    const previous = await context.previousRun();
    const carried = previous ? await conversationOf(previous, read) : [];
    const end = previous && carried.length > 0 ? interruptedEnd(previous) : null;
    const messages: ChatMessage[] = end ? closingOf(carried, end) : [];
    if (input.system && carried.length === 0) messages.push({ role: "system", content: input.system });
    messages.push({ role: "user", content: input.prompt });
    const from = previous && carried.length > 0 ? { runId: previous.id, messages: carried.length } : null;
    return { carried, from, messages, calls: 0, pending: [], logged: 0, steered: 0 };
  }

  /** A parked agent's conversation, with the answer to the client tool it waited for. */
  private async resumeParked(context: ExecutionContext, read: ReadRun): Promise<AgentProgress> {
    const { state, toolResult } = context.resumed as Extract<ExecutionContext["resumed"], { from: "park" }>;
    const saved = state as ParkedAgent;
    const progress: AgentProgress = {
      carried: await carriedPart(saved.carried, read),
      from: saved.carried ?? null,
      messages: saved.messages,
      calls: saved.calls,
      pending: saved.pending,
      logged: saved.logged ?? 0,
      steered: saved.steered ?? 0,
    };
    const call = progress.pending[0]!;
    await this.clientToolAnswered(call, parseArguments(call) ?? {}, toolResult, context, progress);
    return progress;
  }

  /**
   * Answers the first pending tool call: its answer joins the conversation, the call leaves the
   * pending ones, and a checkpoint of that is saved with the answer's step (a call answered
   * without one, a refusal, is checkpointed on its own).
   */
  private async toolCall(
    call: ToolCall,
    input: AgentInput,
    context: ExecutionContext,
    progress: AgentProgress,
    rerun: InterruptedStep | null,
  ): Promise<void> {
    const name = call.function.name;
    const args = parseArguments(call);
    if (
      args &&
      name === "shell" &&
      input.tools.shell &&
      typeof args.command === "string" &&
      args.command !== ""
    ) {
      // A failing command is an answer for the model, not a failure of the run.
      await runShellTool(
        {
          command: args.command,
          allowFailure: true,
          origin: { toolCallId: call.id },
          onInterrupt: input.tools.shellOnInterrupt,
          rerun,
          checkpointOf: (result) =>
            checkpointOf(progress, toolMessage(call, shellAnswer(result)), answered(progress)),
        },
        context,
        this.options.shellEnv(context),
        this.options,
      ).then((result) => answer(progress, toolMessage(call, shellAnswer(result))));
      return;
    }
    if (args && input.tools.client.some((t) => t.name === name)) {
      const { journal } = context;
      await context.fireHook("tool.before", { tool: name, toolCallId: call.id });
      await journal.event("tool.started", { tool: name, toolCallId: call.id, client: true, arguments: args });
      // The run waits in `waiting_tool` until the client posts the result (here, or after a park).
      const result = await context.waitForTool(name, parkedOf(progress));
      await this.clientToolAnswered(call, args, result, context, progress);
      return;
    }
    const refusal = toolMessage(call, refusalOfCall(name, args, input));
    await context.journal.checkpoint(checkpointOf(progress, refusal, answered(progress)));
    answer(progress, refusal);
  }

  /** A client tool's result recorded: its step (with the checkpoint after it), its event, its hooks. */
  private async clientToolAnswered(
    call: ToolCall,
    args: Record<string, unknown>,
    result: unknown,
    context: ExecutionContext,
    progress: AgentProgress,
  ): Promise<void> {
    const { journal } = context;
    const name = call.function.name;
    const message = toolMessage(call, result);
    const stepId = await journal.startStep("tool", name);
    if (stepId !== null)
      await journal.finishStep(
        stepId,
        { status: "completed", output: { arguments: args, result } },
        checkpointOf(progress, message, answered(progress)),
      );
    await journal.event("tool.completed", { stepId, tool: name, toolCallId: call.id, client: true });
    await context.fireHook("tool.after", { tool: name, toolCallId: call.id });
    answer(progress, message);
  }
}

/**
 * The progress a checkpoint holds: the carried part it names, read from that run, the messages
 * of its log, the calls made, the tool calls still to answer.
 */
const fromCheckpoint = async (
  state: AgentCheckpoint,
  log: ChatMessage[],
  read: ReadRun,
): Promise<AgentProgress> => ({
  carried: await carriedPart(state.carried, read),
  from: state.carried ?? null,
  messages: [...log],
  calls: state.calls,
  pending: [...state.pending],
  logged: log.length,
  steered: state.steered ?? 0,
});

/** What a parked wait saves of the progress: all of it, the carried part by its reference. */
const parkedOf = (progress: AgentProgress): ParkedAgent => ({
  messages: progress.messages,
  calls: progress.calls,
  pending: progress.pending,
  logged: progress.logged,
  ...carriedRef(progress),
});

/**
 * The messages sent to the run since the last it took join the conversation, in their order, as
 * the user's (docs/spec.md §5, *Steering*); true when there were any. They are logged with the next
 * checkpoint, which names the last one taken: an attempt that goes on from an earlier checkpoint
 * reads them again, one that goes on from a later one does not.
 */
async function takeMessages(context: ExecutionContext, progress: AgentProgress): Promise<boolean> {
  const messages = await context.messages(progress.steered);
  for (const m of messages) progress.messages.push({ role: "user", content: m.content });
  if (messages.length > 0) progress.steered = messages[messages.length - 1]!.id;
  return messages.length > 0;
}

/** The calls and pending tool calls once the first pending one is answered. */
const answered = (progress: AgentProgress): AgentCheckpoint => ({
  calls: progress.calls,
  pending: progress.pending.slice(1),
});

/** The first pending call answered: its answer in the conversation, now in the log too. */
function answer(progress: AgentProgress, message: ChatMessage): void {
  progress.messages.push(message);
  progress.pending.shift();
  progress.logged = progress.messages.length;
}

/** What the model is told of a shell call: its exit, its output, and why it failed if it did. */
const shellAnswer = (result: {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  failure: { message: string; code: string } | null;
}) => ({
  exitCode: result.exitCode,
  stdout: result.stdout,
  stderr: result.stderr,
  ...(result.failure ? { error: result.failure.message, errorCode: result.failure.code } : {}),
});

/** Why a tool call the agent cannot make is refused: its answer to the model. */
function refusalOfCall(name: string, args: Record<string, unknown> | null, input: AgentInput): unknown {
  if (!args) return { error: "the arguments are not a JSON object" };
  if (name === "shell" && input.tools.shell) return { error: "shell needs a command" };
  return { error: `there is no tool named ${name}` };
}
