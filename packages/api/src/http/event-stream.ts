import { once } from "node:events";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { isTrackedEnvelope } from "@trpc/server";
import { toApiError } from "../errors";

/** A client asks for Server-Sent Events (an EventSource does); anything else gets the JSON list. */
export function wantsEventStream(headers: IncomingHttpHeaders): boolean {
  return (headers.accept ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * Writes a subscription's items as Server-Sent Events (docs/spec.md §12): `id:` the event's id (a
 * client resumes after it with `Last-Event-ID` or `?after=`), `event:` its type, `data:` the
 * event as JSON; a comment every `keepAliveMs` while idle. An error after the stream started
 * can only be told in it: an `error` event with the API's error body, then the end.
 */
export async function serveEventStream(
  res: ServerResponse,
  items: AsyncIterable<unknown>,
  keepAliveMs: number,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    // Proxies that buffer answers (nginx) pass this one through as it is written.
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), keepAliveMs);
  try {
    for await (const item of items) {
      if (signal.aborted) break;
      const [id, event] = isTrackedEnvelope(item) ? [item[0], item[1]] : [null, item];
      const type = (event as { type?: unknown }).type;
      const message = `${id === null ? "" : `id: ${id}\n`}event: ${String(type)}\ndata: ${JSON.stringify(event)}\n\n`;
      // A slow reader holds its stream back, not this process's memory.
      if (!res.write(message)) await Promise.race([once(res, "drain"), once(res, "close")]);
    }
  } catch (error) {
    if (!signal.aborted) res.write(`event: error\ndata: ${JSON.stringify(toApiError(error).body)}\n\n`);
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
}
