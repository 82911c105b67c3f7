import { retryAfterHeaderMs } from "@oah/core";
import { RunFailure } from "../../run-failure";
import { type ModelLimits, ModelThrottled } from "./model-limit";

/** A chat message in the OpenAI chat-completions shape. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ToolSpec {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ModelReply {
  content: string;
  toolCalls: ToolCall[];
  usage: TokenUsage | null;
  finishReason: string | null;
}

/** An OpenAI-compatible endpoint (OAH_MODEL_BASE_URL, OAH_MODEL_NAME, OAH_MODEL_API_KEY, OAH_MODEL_TIMEOUT_MS). */
export interface ModelEndpoint {
  baseUrl: string | undefined;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
  /** OAH_MODEL_LIMITS and the fleet's capacity under them; none: calls are never held back. */
  limits?: ModelLimits;
}

interface StreamChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    message?: { content?: string | null; tool_calls?: ToolCall[] };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
}

function usageOf(chunk: StreamChunk): TokenUsage | null {
  const u = chunk.usage;
  if (!u) return null;
  return {
    promptTokens: u.prompt_tokens ?? 0,
    completionTokens: u.completion_tokens ?? 0,
    totalTokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0),
  };
}

/** Folds streamed chunks (or one whole answer) into a reply. */
class ReplyBuilder {
  private content = "";
  private readonly calls: ToolCall[] = [];
  private usage: TokenUsage | null = null;
  private finishReason: string | null = null;

  add(chunk: StreamChunk): void {
    this.usage = usageOf(chunk) ?? this.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    this.finishReason = choice.finish_reason ?? this.finishReason;
    if (choice.message) {
      this.content += choice.message.content ?? "";
      this.calls.push(...(choice.message.tool_calls ?? []));
      return;
    }
    this.content += choice.delta?.content ?? "";
    for (const part of choice.delta?.tool_calls ?? []) {
      let call = this.calls[part.index];
      if (!call) {
        call = { id: "", type: "function", function: { name: "", arguments: "" } };
        this.calls[part.index] = call;
      }
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  }

  reply(): ModelReply {
    return {
      content: this.content,
      toolCalls: this.calls.filter(Boolean),
      usage: this.usage,
      finishReason: this.finishReason,
    };
  }
}

async function readStream(
  body: ReadableStream<Uint8Array>,
  builder: ReplyBuilder,
  onText: (text: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return;
      const chunk = JSON.parse(data) as StreamChunk;
      builder.add(chunk);
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) onText(text);
    }
  }
}

/**
 * One streamed chat completion; `onText` is given each piece of the answer's text as it
 * arrives (nothing when the endpoint answers in one piece, as plain JSON). Aborted with
 * `signal` (the run's cancel or timeout: the HTTP request is closed), or by the per-call
 * timeout, which fails with `model_timed_out`; a 429 is a ModelThrottled (see underLimits); any
 * other failure is `model_failed`.
 */
export async function chatCompletion(
  endpoint: ModelEndpoint,
  messages: ChatMessage[],
  tools: ToolSpec[],
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<ModelReply> {
  if (!endpoint.baseUrl) {
    throw new RunFailure("model_failed", "no model endpoint is configured (set OAH_MODEL_BASE_URL)");
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), endpoint.timeoutMs);
  const both = AbortSignal.any([signal, timeout.signal]);
  const builder = new ReplyBuilder();
  try {
    const res = await fetch(`${endpoint.baseUrl.replace(/\/$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: endpoint.model,
        messages,
        ...(tools.length > 0 ? { tools } : {}),
        stream: true,
        stream_options: { include_usage: true },
      }),
      signal: both,
    });
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      if (res.status === 429) {
        throw new ModelThrottled(
          retryAfterHeaderMs(res.headers.get("retry-after"), Date.now()),
          `the model endpoint answered 429: ${text.slice(0, 500)}`,
        );
      }
      throw new RunFailure(
        "model_failed",
        `the model endpoint answered ${res.status}: ${text.slice(0, 500)}`,
      );
    }
    if (!res.body) throw new RunFailure("model_failed", "the model endpoint sent no body");
    if ((res.headers.get("content-type") ?? "").includes("application/json")) {
      builder.add((await res.json()) as StreamChunk);
    } else {
      await readStream(res.body, builder, onText);
    }
    return builder.reply();
  } catch (error) {
    if (signal.aborted) throw error;
    if (timeout.signal.aborted) {
      throw new RunFailure("model_timed_out", `the model call exceeded ${endpoint.timeoutMs} ms`);
    }
    if (error instanceof RunFailure) throw error;
    throw new RunFailure("model_failed", `the model call failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
