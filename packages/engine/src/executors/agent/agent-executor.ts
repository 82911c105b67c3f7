import type { AgentInput } from "@oah/contract";
import { shellDisabled } from "../../commands/command-runner";
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

/**
 * The `agent` executor: the loop an agent harness expects. It sends the
 * conversation (the session's earlier turns, then this prompt) to the model,
 * executes the tool calls the model asks for (the shell tool, and client tools
 * that put the run in `waiting_tool` until their result is posted), feeds the
 * results back, and stops on a final answer or when the step budget is spent.
 */
export class AgentExecutor implements Executor {
  constructor(private readonly options: AgentExecutorOptions) {}

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const input = context.run.input as AgentInput;
    if (input.tools.shell && !this.options.commands) throw shellDisabled();
    const previous = (await context.previousOutput()) as Partial<AgentOutput> | null;
    const messages: ChatMessage[] = Array.isArray(previous?.messages) ? [...previous.messages] : [];
    if (input.system && messages.length === 0) messages.push({ role: "system", content: input.system });
    messages.push({ role: "user", content: input.prompt });
    const tools = toolSpecs(input.tools);
    for (let step = 0; step < input.maxSteps; step++) {
      const reply = await callModel(context, this.options.model, messages, tools);
      messages.push({
        role: "assistant",
        content: reply.content || null,
        ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
      });
      if (reply.toolCalls.length === 0) {
        const output: AgentOutput = { answer: reply.content, messages };
        return { output };
      }
      for (const call of reply.toolCalls) {
        const result = await this.toolCall(call, input, context);
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
      }
    }
    throw new RunFailure("executor_failed", `the model gave no final answer within ${input.maxSteps} calls`);
  }

  private async toolCall(call: ToolCall, input: AgentInput, context: ExecutionContext): Promise<unknown> {
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
    if (input.tools.client.some((t) => t.name === name)) return this.clientTool(call, args, context);
    return { error: `there is no tool named ${name}` };
  }

  /** A client tool: the run waits in `waiting_tool` until the client posts the result. */
  private async clientTool(call: ToolCall, args: Record<string, unknown>, context: ExecutionContext) {
    const { journal } = context;
    const name = call.function.name;
    await context.fireHook("tool.before", { tool: name, toolCallId: call.id });
    await journal.event("tool.started", { tool: name, toolCallId: call.id, client: true, arguments: args });
    const result = await context.waitForTool(name);
    const stepId = await journal.startStep("tool", name);
    if (stepId !== null)
      await journal.finishStep(stepId, { status: "completed", output: { arguments: args, result } });
    await journal.event("tool.completed", { stepId, tool: name, toolCallId: call.id, client: true });
    await context.fireHook("tool.after", { tool: name, toolCallId: call.id });
    return result;
  }
}
