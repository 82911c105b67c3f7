import { STREAM_RETRY_AFTER_SECONDS, type StreamSlot } from "@oah/core";
import type { NextRequest } from "next/server";
import { consoleStreamRefusal, takeConsoleStream } from "@/lib/console-streams";
import { CLIENT_ADDRESS_HEADER, TOKEN_COOKIE, tokenRequired } from "@/lib/server-config";
import {
  crossSite,
  fetchUpstream,
  isFailure,
  readBodyWithin,
  sessionToken,
  trpcError,
  upstreamAuth,
} from "@/lib/upstream";

export const dynamic = "force-dynamic";

/** The largest body forwarded to oah-api: what oah-api itself takes by default (OAH_MAX_BODY_BYTES). */
const MAX_BODY_BYTES = 1_048_576;

/** Procedure paths as tRPC writes them (`admin.runs`, or several joined by commas when batched). */
const PROCEDURE_PATH =
  /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*(,[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*)*$/;

/** The stream slot of this browser: counted by its session (when it signs in) and its address. */
function streamSlotOf(request: NextRequest): StreamSlot {
  const address = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  return takeConsoleStream(tokenRequired() ? sessionToken(request) : undefined, address);
}

function tooManyStreams(slot: Extract<StreamSlot, { ok: false }>): Response {
  const message = consoleStreamRefusal(slot.cap, slot.limit, STREAM_RETRY_AFTER_SECONDS);
  const refused = trpcError(429, "too_many_streams", message);
  refused.headers.set("retry-after", String(STREAM_RETRY_AFTER_SECONDS));
  return refused;
}

/** A stream's body as it comes, with `release` called once it ends, fails or the browser leaves. */
function releasedAtEnd(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        release();
        controller.close();
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
}

/**
 * The browser's only way to oah-api: `/api/trpc/<procedure>` → `${OAH_API_URL}/trpc/<procedure>`,
 * with the method, query and body as they came, and the operator's token added here, on the server.
 */
async function forward(request: NextRequest, params: Promise<{ path: string[] }>): Promise<Response> {
  const { path } = await params;
  const procedure = path.join("/");
  if (!PROCEDURE_PATH.test(procedure)) return trpcError(404, "not_found", `no procedure ${procedure}`);
  if (crossSite(request)) return trpcError(403, "forbidden", "requests from other sites are refused");

  const auth = upstreamAuth(request);
  if (!auth.ok) return trpcError(401, "unauthorized", "Sign in to the console to use the API.");

  // A subscription (an EventSource asks for a stream) is answered as it comes, for as long as the
  // browser holds it; where to resume after a dropped connection goes along with it.
  const streaming =
    request.method === "GET" && /\btext\/event-stream\b/i.test(request.headers.get("accept") ?? "");
  const headers: Record<string, string> = {
    accept: streaming ? "text/event-stream" : "application/json",
    ...auth.headers,
  };
  const lastEventId = request.headers.get("last-event-id");
  if (streaming && lastEventId) headers["last-event-id"] = lastEventId;
  // A stream holds a connection to oah-api for as long as the browser keeps it: each browser
  // gets its share (console-streams.ts), so that none can starve the others. Asked for as a
  // stream, it is counted before oah-api is called.
  let slot = streaming ? streamSlotOf(request) : null;
  if (slot && !slot.ok) return tooManyStreams(slot);
  let body: string | undefined;
  if (request.method === "POST") {
    const type = request.headers.get("content-type") ?? "";
    // A page of another site cannot send JSON without a CORS preflight, which nobody answers here.
    if (!/^application\/json\b/i.test(type)) {
      return trpcError(415, "unsupported_media_type", "the request body must be application/json");
    }
    headers["content-type"] = type;
    // Read only after the session was checked above, and never past the limit.
    const text = await readBodyWithin(request, MAX_BODY_BYTES);
    if (text === null) {
      return trpcError(413, "payload_too_large", `the request body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    body = text;
  }

  const upstream = await fetchUpstream(`/trpc/${procedure}${request.nextUrl.search}`, {
    method: request.method,
    headers,
    body,
    streaming,
    // The browser gone, the stream to oah-api is closed too.
    signal: request.signal,
  });
  const answersStream =
    !isFailure(upstream) &&
    upstream.ok &&
    upstream.body !== null &&
    /^text\/event-stream\b/i.test(upstream.headers.get("content-type") ?? "");
  if (!answersStream && slot?.ok) slot.release();
  // tRPC streams a subscription whatever the request accepts: one not asked for as a stream counts now.
  if (answersStream && !slot) {
    slot = streamSlotOf(request);
    if (!slot.ok) {
      await upstream.body?.cancel();
      return tooManyStreams(slot);
    }
  }
  if (isFailure(upstream)) return trpcError(upstream.httpStatus, upstream.errorCode, upstream.message);

  if (upstream.status === 401) {
    // oah-api's own 401 is not in tRPC's shape: answer one the client understands.
    if (!tokenRequired()) {
      return trpcError(
        401,
        "api_token_not_configured",
        "oah-api requires a token: set OAH_API_TOKEN in the console's environment and sign in.",
      );
    }
    const refused = trpcError(401, "unauthorized", "oah-api refused the token: sign in again.");
    refused.headers.append("set-cookie", `${TOKEN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
    return refused;
  }

  const type = upstream.headers.get("content-type") ?? "application/json";
  const passed = answersStream && slot?.ok ? releasedAtEnd(upstream.body!, slot.release) : upstream.body;
  return new Response(passed, {
    status: upstream.status,
    headers: answersStream
      ? // no-transform: Next.js does not compress it (which would hold events back in the compressor).
        { "content-type": type, "cache-control": "no-store, no-transform", "x-accel-buffering": "no" }
      : { "content-type": type, "cache-control": "no-store" },
  });
}

export function GET(request: NextRequest, context: { params: Promise<{ path: string[] }> }) {
  return forward(request, context.params);
}

export function POST(request: NextRequest, context: { params: Promise<{ path: string[] }> }) {
  return forward(request, context.params);
}
