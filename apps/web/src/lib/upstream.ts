import type { NextRequest } from "next/server";
import { apiUrl, TOKEN_COOKIE, tokenRequired } from "./server-config";

/** JSON-RPC codes tRPC uses for the HTTP statuses the console answers by itself. */
const RPC_CODES: Record<number, { code: number; name: string }> = {
  401: { code: -32001, name: "UNAUTHORIZED" },
  403: { code: -32003, name: "FORBIDDEN" },
  404: { code: -32004, name: "NOT_FOUND" },
  405: { code: -32005, name: "METHOD_NOT_SUPPORTED" },
  413: { code: -32013, name: "PAYLOAD_TOO_LARGE" },
  415: { code: -32015, name: "UNSUPPORTED_MEDIA_TYPE" },
  429: { code: -32029, name: "TOO_MANY_REQUESTS" },
  502: { code: -32603, name: "BAD_GATEWAY" },
  504: { code: -32603, name: "GATEWAY_TIMEOUT" },
};

/** An error in tRPC's wire shape (non-batched), so that the client reads `data.errorCode` as from the API. */
export function trpcError(httpStatus: number, errorCode: string, message: string): Response {
  const rpc = RPC_CODES[httpStatus] ?? { code: -32603, name: "INTERNAL_SERVER_ERROR" };
  return Response.json(
    { error: { message, code: rpc.code, data: { code: rpc.name, httpStatus, errorCode } } },
    { status: httpStatus, headers: { "cache-control": "no-store" } },
  );
}

/** The token the operator signed in with, if any (only meaningful when a token is required). */
export function sessionToken(request: NextRequest): string | undefined {
  const value = request.cookies.get(TOKEN_COOKIE)?.value;
  return value ? value : undefined;
}

/**
 * Refuses requests started by another site: `Sec-Fetch-Site` says so where the browser sends it
 * (every current one), else `Origin`, sent with every non-GET request (as `null` by the console's
 * own pages, whose referrer policy is no-referrer, so it decides only without the first). The
 * SameSite=strict cookie already keeps the token out of such requests; this also protects the
 * console that runs without a token.
 */
export function crossSite(request: NextRequest): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site) return site !== "same-origin" && site !== "none";
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") {
    const host = request.headers.get("host");
    try {
      if (new URL(origin).host !== host) return true;
    } catch {
      return true;
    }
  } else if (origin === "null") {
    return true;
  }
  return false;
}

export type UpstreamAuth = { ok: true; headers: Record<string, string> } | { ok: false };

/** The Authorization header for oah-api: the signed-in operator's token, or none when none is needed. */
export function upstreamAuth(request: NextRequest): UpstreamAuth {
  if (!tokenRequired()) return { ok: true, headers: {} };
  const token = sessionToken(request);
  if (!token) return { ok: false };
  return { ok: true, headers: { authorization: `Bearer ${token}` } };
}

/**
 * The body of a request, read up to `limit` bytes; null as soon as it is larger (a declared
 * length is refused before anything is read), so that no body is ever held whole past the limit.
 */
export async function readBodyWithin(request: Request, limit: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export interface UpstreamFailure {
  httpStatus: number;
  errorCode: string;
  message: string;
}

/**
 * A fetch to oah-api, with a time limit; network failures become a message saying what to do.
 * A stream (`streaming`) is held for as long as `signal` lets it: the limit is on its headers.
 */
export async function fetchUpstream(
  path: string,
  init: RequestInit & { timeoutMs?: number; streaming?: boolean },
): Promise<Response | UpstreamFailure> {
  const base = apiUrl();
  const { timeoutMs = 15_000, streaming = false, signal, ...rest } = init;
  const limit = new AbortController();
  const timer = setTimeout(
    () => limit.abort(new DOMException("no answer in time", "TimeoutError")),
    timeoutMs,
  );
  try {
    const response = await fetch(`${base}${path}`, {
      ...rest,
      cache: "no-store",
      redirect: "manual",
      signal: signal ? AbortSignal.any([signal, limit.signal]) : limit.signal,
    });
    if (streaming) clearTimeout(timer);
    return response;
  } catch (error) {
    clearTimeout(timer);
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const timedOut = (error as Error).name === "TimeoutError";
    return {
      httpStatus: timedOut ? 504 : 502,
      errorCode: timedOut ? "api_timeout" : "api_unreachable",
      message: timedOut
        ? `oah-api at ${base} did not answer in time.`
        : `The console cannot reach oah-api at ${base}${cause ? ` (${cause})` : ""}. ` +
          "Start it (npm start) or point OAH_API_URL at it.",
    };
  }
}

export function isFailure(value: Response | UpstreamFailure): value is UpstreamFailure {
  return !(value instanceof Response);
}
