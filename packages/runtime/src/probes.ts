import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Metrics } from "./metrics";

export interface ProbeOptions {
  metrics: Metrics;
  /** Ready to serve: started, not draining, and the store answers. */
  isReady: () => Promise<boolean>;
  apiToken: string | undefined;
}

export function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Answers /healthz, /readyz (never behind the token) and /metrics (behind it when
 * one is set); resolves to the status sent, or null for any other path.
 */
export async function serveProbe(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  options: ProbeOptions,
): Promise<number | null> {
  if (path === "/healthz") {
    json(res, 200, { status: "ok" });
    return 200;
  }
  if (path === "/readyz") {
    const ready = await options.isReady().catch(() => false);
    json(res, ready ? 200 : 503, { status: ready ? "ready" : "not_ready" });
    return ready ? 200 : 503;
  }
  if (path !== "/metrics") return null;
  if (options.apiToken && !tokenMatches(req.headers.authorization, options.apiToken)) {
    json(
      res,
      401,
      { error: { code: "unauthorized", message: "a valid bearer token is required" } },
      { "www-authenticate": 'Bearer realm="oah"' },
    );
    return 401;
  }
  const text = await options.metrics.registry.metrics();
  res.writeHead(200, { "content-type": options.metrics.registry.contentType });
  res.end(text);
  return 200;
}
