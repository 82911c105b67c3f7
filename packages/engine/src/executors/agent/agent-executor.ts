import type { AgentInput } from "@oah/contract";
import { refusalOf } from "../../commands/command-runner";
import { RunFailure } from "../../run-failure";
import type { ExecutionContext, ExecutionResult, Executor } from "../executor";
import { callModel } from "../model/model-call";
import type { ChatMessage, ModelEndpoint, ToolCall, ToolSpec } from "../model/model-client";
import { runShellTool, type ShellToolOptions } from "../tools/shell-tool";

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

/** Where an agent is in its loop: what it saves when it parks, and goes on from. */
interface AgentProgress {
  messages: ChatMessage[];
  /** Model calls made so far. */
  calls: number;
  /** The tool calls of the last reply still to answer; when parked, the first is the one waited for. */
  pending: ToolCall[];
}

const toolMessage = (call: ToolCall, result: unknown): ChatMessage => ({
  role: "tool",
  tool_call_id: call.id,
  content: JSON.stringify(result),
});

/**
 * The `agent` executor: the loop an agent harness expects. It sends the
 * conversation (the session's earlier turns, then this prompt) to the model,
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
    const progress = context.resumed ? await this.resume(context) : await this.begin(input, context);
    const tools = toolSpecs(input.tools);
    for (;;) {
      while (progress.pending.length > 0) {
        const call = progress.pending[0]!;
        progress.messages.push(toolMessage(call, await this.toolCall(call, input, context, progress)));
        progress.pending.shift();
      }
      if (progress.calls >= input.maxSteps) {
        throw new RunFailure(
          "executor_failed",
          `the model gave no final answer within ${input.maxSteps} calls`,
        );
      }
      const reply = await callModel(context, this.options.model, progress.messages, tools);
      progress.calls++;
      progress.messages.push({
        role: "assistant",
        content: reply.content || null,
        ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
      });
      if (reply.toolCalls.length === 0) {
        const output: AgentOutput = { answer: reply.content, messages: progress.messages };
        return { output };
      }
      progress.pending = [...reply.toolCalls];
    }
  }

  /** The conversation so far (the session's earlier turns), and this run's prompt. */
  private async begin(input: AgentInput, context: ExecutionContext): Promise<AgentProgress> {
    const previous = (await context.previousOutput()) as Partial<AgentOutput> | null;
    const messages: ChatMessage[] = Array.isArray(previous?.messages) ? [...previous.messages] : [];
    if (input.system && messages.length === 0) messages.push({ role: "system", content: input.system });
    messages.push({ role: "user", content: input.prompt });
    return { messages, calls: 0, pending: [] };
  }

  /** A parked agent's conversation, with the answer to the client tool it waited for. */
  private async resume(context: ExecutionContext): Promise<AgentProgress> {
    const { state, toolResult } = context.resumed!;
    const progress = state as AgentProgress;
    const call = progress.pending.shift()!;
    const result = await this.clientToolAnswered(call, parseArguments(call) ?? {}, toolResult, context);
    progress.messages.push(toolMessage(call, result));
    return progress;
  }

  private async toolCall(
    call: ToolCall,
    input: AgentInput,
    context: ExecutionContext,
    progress: AgentProgress,
  ): Promise<unknown> {
    const name = call.function.name;
    const args = parseArguments(call);
    if (!args) return { error: "the arguments are not a JSON object" };
    if (name === "shell" && input.tools.shell) {
      if (typeof args.command !== "string" || args.command === "") return { error: "shell needs a command" };
      // A failing command is an answer for the model, not a failure of the run.
      const result = await runShellTool(
        { command: args.command, allowFailure: true, origin: { toolCallId: call.id } },
        context,
        this.options.shellEnv(context),
        this.options,
      );
      return {
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
        ...(result.failure ? { error: result.failure.message, errorCode: result.failure.code } : {}),
      };
    }
    if (input.tools.client.some((t) => t.name === name)) {
      const { journal } = context;
      await context.fireHook("tool.before", { tool: name, toolCallId: call.id });
      await journal.event("tool.started", { tool: name, toolCallId: call.id, client: true, arguments: args });
      // The run waits in `waiting_tool` until the client posts the result (here, or after a park).
      const result = await context.waitForTool(name, progress);
      return this.clientToolAnswered(call, args, result, context);
    }
    return { error: `there is no tool named ${name}` };
  }

  /** A client tool's result recorded: its step, its event, its hooks. */
  private async clientToolAnswered(
    call: ToolCall,
    args: Record<string, unknown>,
    result: unknown,
    context: ExecutionContext,
  ): Promise<unknown> {
    const { journal } = context;
    const name = call.function.name;
    const stepId = await journal.startStep("tool", name);
    if (stepId !== null)
      await journal.finishStep(stepId, { status: "completed", output: { arguments: args, result } });
    await journal.event("tool.completed", { stepId, tool: name, toolCallId: call.id, client: true });
    await context.fireHook("tool.after", { tool: name, toolCallId: call.id });
    return result;
  }
}
