import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** One scripted answer of the fake model. */
export interface FakeReply {
  content?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Send the first chunk, then nothing more: a stream that stalls. */
  stall?: boolean;
  /** Answer with this HTTP status and no stream. */
  status?: number;
  /** With `status`: the Retry-After header sent (a 429's, in seconds or an HTTP date). */
  retryAfter?: string;
  /** Answer in one piece, as plain JSON (a service that does not stream). */
  whole?: boolean;
  /** Answer only once this settles: a call the test keeps in flight until it lets it end. */
  after?: Promise<unknown>;
}

export interface FakeModelRequest {
  body: {
    model: string;
    messages: {
      role: string;
      content: string | null;
      tool_calls?: { id: string }[];
      tool_call_id?: string;
    }[];
    tools?: unknown[];
  };
  headers: IncomingMessage["headers"];
  /** Resolves when the client closed the connection before the answer was complete. */
  closedEarly: Promise<void>;
}

/** A request as it came: when (epoch ms), and the status it was answered with. */
export interface FakeModelArrival {
  at: number;
  status: number;
}

export interface FakeModel {
  url: string;
  requests: FakeModelRequest[];
  /** Every request, `respond` or not, in the order they came: a few numbers each. */
  arrivals: FakeModelArrival[];
  /** Queues answers, used in order by the next requests. */
  reply(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

/** Between the chunks of a streamed answer: its text arrives over time, as a model's would. */
const CHUNK_PAUSE_MS = 5;

function sse(res: ServerResponse, chunk: unknown): void {
  res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

/** The text of an answer in the pieces it is streamed in: a word each, with the spaces after it. */
export function fakeChunks(content: string): string[] {
  return content.match(/\s*\S+\s*/g) ?? [content];
}

function finishReason(reply: FakeReply): string {
  return reply.toolCalls?.length ? "tool_calls" : "stop";
}

function wholeAnswer(reply: FakeReply) {
  return {
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.content ?? "",
          ...(reply.toolCalls?.length
            ? {
                tool_calls: reply.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        },
        finish_reason: finishReason(reply),
      },
    ],
    ...(reply.usage ? { usage: reply.usage } : {}),
  };
}

/** Streams the answer; `ending` is called once all of it is sent, before the response ends. */
async function stream(res: ServerResponse, reply: FakeReply, ending: () => void): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [i, text] of fakeChunks(reply.content ?? "").entries()) {
    if (i > 0) await sleep(CHUNK_PAUSE_MS);
    if (res.destroyed) return;
    sse(res, {
      choices: [{ index: 0, delta: { ...(i === 0 ? { role: "assistant" } : {}), content: text } }],
    });
    if (reply.stall) return;
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.arguments);
    sse(res, {
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
            ],
          },
        },
      ],
    });
    sse(res, {
      choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args } }] } }],
    });
  });
  sse(res, {
    choices: [{ index: 0, delta: {}, finish_reason: finishReason(reply) }],
  });
  if (reply.usage) sse(res, { choices: [], usage: reply.usage });
  res.write("data: [DONE]\n\n");
  ending();
  res.end();
}

/**
 * The tool calls of a conversation that no tool message answers right after the assistant
 * message that made them: a conversation providers (Anthropic, OpenAI) refuse with a 400.
 */
export function unansweredToolCalls(messages: FakeModelRequest["body"]["messages"]): string[] {
  const unanswered: string[] = [];
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || !m.tool_calls?.length) return;
    const answered = new Set<string>();
    for (const next of messages.slice(i + 1)) {
      if (next.role !== "tool") break;
      if (next.tool_call_id) answered.add(next.tool_call_id);
    }
    unanswered.push(...m.tool_calls.map((c) => c.id).filter((id) => !answered.has(id)));
  });
  return unanswered;
}

export interface FakeModelOptions {
  /**
   * The answer to a request when no queued one is left: for many conversations at once (the
   * bench's agent runs), each answered by where it is rather than by the order of the requests.
   * With one, `requests` stays empty: thousands of conversations would only grow the process.
   */
  respond?: (request: FakeModelRequest["body"]) => FakeReply;
}

/**
 * A small OpenAI-compatible chat-completions server (the only stand-in the tests
 * use, since no model service is reachable here): it streams scripted answers as
 * server-sent events, a word per chunk with short pauses, tool calls included. As providers
 * do, it answers 400 (recorded, no scripted answer used) to a conversation with a tool call whose
 * result does not follow it.
 */
export async function startFakeModel(options: FakeModelOptions = {}): Promise<FakeModel> {
  const queue: FakeReply[] = [];
  const requests: FakeModelRequest[] = [];
  const arrivals: FakeModelArrival[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    let finished = false;
    const arrival: FakeModelArrival = { at: Date.now(), status: 200 };
    arrivals.push(arrival);
    req.on("end", () => {
      const closedEarly = new Promise<void>((resolve) => {
        res.on("close", () => {
          if (!finished) resolve();
        });
      });
      const body = JSON.parse(raw) as FakeModelRequest["body"];
      if (!options.respond) requests.push({ body, headers: req.headers, closedEarly });
      const unanswered = unansweredToolCalls(body.messages);
      if (unanswered.length > 0) {
        finished = true;
        arrival.status = 400;
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: {
              type: "invalid_request_error",
              message: `tool calls without a result after them: ${unanswered.join(", ")}`,
            },
          }),
        );
        return;
      }
      const reply = queue.shift() ?? options.respond?.(body) ?? { content: "(no scripted reply)" };
      void answer(reply);
    });
    async function answer(reply: FakeReply): Promise<void> {
      await reply.after;
      if (res.destroyed) return;
      if (reply.status || reply.whole) {
        finished = true;
        arrival.status = reply.status ?? 200;
        res.writeHead(reply.status ?? 200, {
          "content-type": "application/json",
          ...(reply.retryAfter !== undefined ? { "retry-after": reply.retryAfter } : {}),
        });
        res.end(
          JSON.stringify(reply.status ? { error: { message: "scripted failure" } } : wholeAnswer(reply)),
        );
        return;
      }
      stream(res, reply, () => {
        finished = true;
      }).catch(() => res.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    arrivals,
    reply: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
