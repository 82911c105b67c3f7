import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** One scripted answer of the fake model. */
export interface FakeReply {
  content?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Send the first chunk, then nothing more: a stream that stalls. */
  stall?: boolean;
  /** Answer with this HTTP status and no stream. */
  status?: number;
}

export interface FakeModelRequest {
  body: {
    model: string;
    messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
    tools?: unknown[];
  };
  headers: IncomingMessage["headers"];
  /** Resolves when the client closed the connection before the answer was complete. */
  closedEarly: Promise<void>;
}

export interface FakeModel {
  url: string;
  requests: FakeModelRequest[];
  /** Queues answers, used in order by the next requests. */
  reply(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

function sse(res: ServerResponse, chunk: unknown): void {
  res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

/**
 * A small OpenAI-compatible chat-completions server (the only stand-in the tests
 * use, since no model service is reachable here): it streams scripted answers as
 * server-sent events, split into several chunks, tool calls included.
 */
export async function startFakeModel(): Promise<FakeModel> {
  const queue: FakeReply[] = [];
  const requests: FakeModelRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      let finished = false;
      const closedEarly = new Promise<void>((resolve) => {
        res.on("close", () => {
          if (!finished) resolve();
        });
      });
      requests.push({ body: JSON.parse(raw), headers: req.headers, closedEarly });
      const reply = queue.shift() ?? { content: "(no scripted reply)" };
      if (reply.status) {
        finished = true;
        res.writeHead(reply.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "scripted failure" } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const content = reply.content ?? "";
      const half = Math.ceil(content.length / 2);
      sse(res, { choices: [{ index: 0, delta: { role: "assistant", content: content.slice(0, half) } }] });
      if (reply.stall) return;
      sse(res, { choices: [{ index: 0, delta: { content: content.slice(half) } }] });
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
        choices: [{ index: 0, delta: {}, finish_reason: reply.toolCalls?.length ? "tool_calls" : "stop" }],
      });
      if (reply.usage) sse(res, { choices: [], usage: reply.usage });
      res.write("data: [DONE]\n\n");
      finished = true;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
