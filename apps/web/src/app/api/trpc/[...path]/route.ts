import type { NextRequest } from "next/server";
import { TOKEN_COOKIE, tokenRequired } from "@/lib/server-config";
import { crossSite, fetchUpstream, isFailure, readBodyWithin, trpcError, upstreamAuth } from "@/lib/upstream";

export const dynamic = "force-dynamic";

/** The largest body forwarded to oah-api: what oah-api itself takes by default (OAH_MAX_BODY_BYTES). */
const MAX_BODY_BYTES = 1_048_576;

/** Procedure paths as tRPC writes them (`admin.runs`, or several joined by commas when batched). */
const PROCEDURE_PATH =
  /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*(,[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*)*$/;

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
  return new Response(upstream.body, {
    status: upstream.status,
    headers: /^text\/event-stream\b/i.test(type)
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
