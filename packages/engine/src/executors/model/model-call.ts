import { RunFailure } from "../../run-failure";
import type { ExecutionContext } from "../executor";
import {
  type ChatMessage,
  chatCompletion,
  type ModelEndpoint,
  type ModelReply,
  type ToolSpec,
} from "./model-client";

/** A model call with its record: a `model` step and the model.started / completed / failed events. */
export async function callModel(
  context: ExecutionContext,
  endpoint: ModelEndpoint,
  messages: ChatMessage[],
  tools: ToolSpec[] = [],
): Promise<ModelReply> {
  const { journal } = context;
  const stepId = await journal.startStep("model", endpoint.model);
  await journal.event("model.started", { stepId, model: endpoint.model, messages: messages.length });
  try {
    const reply = await chatCompletion(endpoint, messages, tools, context.signal);
    const usage = reply.usage;
    if (stepId !== null) {
      await journal.finishStep(stepId, {
        status: "completed",
        output: {
          content: reply.content,
          toolCalls: reply.toolCalls,
          usage,
          finishReason: reply.finishReason,
        },
      });
    }
    await journal.event("model.completed", {
      stepId,
      model: endpoint.model,
      finishReason: reply.finishReason,
      toolCalls: reply.toolCalls.length,
      ...(usage ?? {}),
    });
    return reply;
  } catch (error) {
    const failure =
      error instanceof RunFailure
        ? error
        : new RunFailure("model_failed", (error as Error).message ?? String(error));
    if (stepId !== null) {
      await journal.finishStep(stepId, {
        status: "failed",
        errorCode: failure.code,
        errorMessage: failure.message,
      });
    }
    await journal.event("model.failed", {
      stepId,
      model: endpoint.model,
      errorCode: failure.code,
      message: failure.message,
    });
    throw context.signal.aborted ? error : failure;
  }
}
