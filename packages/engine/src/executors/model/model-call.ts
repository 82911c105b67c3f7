import { RunFailure } from "../../run-failure";
import type { Checkpoint, ExecutionContext } from "../executor";
import {
  type ChatMessage,
  chatCompletion,
  type ModelEndpoint,
  type ModelReply,
  type ToolSpec,
} from "./model-client";
import { underLimits } from "./model-limit";

/**
 * A model call with its record: a `model` step and the model.started / completed / failed
 * events, and the answer's text as it is written in live `model.delta` events
 * `{stepId, index, text}` (index 0, 1, 2… within the call), all shown before the stored
 * `model.completed`, whose `text` is the whole of it. Under OAH_MODEL_LIMITS, a wait for capacity
 * is a `model.waited` event `{stepId, model, ms}` once it ends, and a provider's 429 a
 * `model.throttled` `{stepId, model, retryAfterMs}` before the wait it brings (docs/spec.md §6, *Model limits*).
 */
export async function callModel(
  context: ExecutionContext,
  endpoint: ModelEndpoint,
  messages: ChatMessage[],
  tools: ToolSpec[] = [],
  /** What a later attempt goes on from once this reply is had: saved with the model step's end. */
  checkpointOf?: (reply: ModelReply) => Checkpoint,
): Promise<ModelReply> {
  const { journal } = context;
  const stepId = await journal.startStep("model", endpoint.model);
  await journal.event("model.started", { stepId, model: endpoint.model, messages: messages.length });
  try {
    let index = 0;
    const model = endpoint.model;
    const reply = await underLimits(
      endpoint.limits,
      model,
      JSON.stringify(messages).length + JSON.stringify(tools).length,
      context.signal,
      {
        waited: (ms) => journal.event("model.waited", { stepId, model, ms }),
        throttled: (retryAfterMs) => journal.event("model.throttled", { stepId, model, retryAfterMs }),
      },
      () =>
        chatCompletion(endpoint, messages, tools, context.signal, (text) =>
          context.live("model.delta", { stepId, index: index++, text }),
        ),
    );
    const usage = reply.usage;
    if (stepId !== null) {
      await journal.finishStep(
        stepId,
        {
          status: "completed",
          output: {
            content: reply.content,
            toolCalls: reply.toolCalls,
            usage,
            finishReason: reply.finishReason,
          },
          // Counted to the run's workspace, reported or not: a call is a call.
          usage: { promptTokens: usage?.promptTokens ?? 0, completionTokens: usage?.completionTokens ?? 0 },
        },
        checkpointOf?.(reply),
      );
    }
    await journal.event("model.completed", {
      stepId,
      model: endpoint.model,
      finishReason: reply.finishReason,
      text: reply.content,
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
