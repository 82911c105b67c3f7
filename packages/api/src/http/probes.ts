import type { IncomingMessage, ServerResponse } from "node:http";
import { type CommandsAvailability, LOCAL_ACTOR, may } from "@oah/core";
import type { AuthOutcome, BearerAuth } from "./bearer-auth";
import { sendJson } from "./respond";

/** What an HTTP server of oah records and exposes: its requests, and the process's Prometheus metrics. */
export interface HttpMetrics {
  registry: { metrics(): Promise<string>; contentType: string };
  httpRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
}

export interface ProbeOptions {
  metrics: Pick<HttpMetrics, "registry">;
  /** Ready to serve: started, not draining, and the store answers. */
  isReady: () => Promise<boolean>;
  /** Whether this process runs commands of runs (told in /readyz); none for a process without runs. */
  commands?: CommandsAvailability;
  /** The bearer check of /metrics; null without OAH_API_TOKEN. */
  auth: BearerAuth | null;
}

/** A refusal in the API's envelope, with its headers. */
export interface Refusal {
  status: number;
  body: { error: { code: string; message: string } };
  headers: Record<string, string>;
}

/** The answer to a refused bearer check: 401 with the challenge, or 429 with when to come back. */
export function authRefusal(outcome: Exclude<AuthOutcome, { ok: true }>): Refusal {
  if (outcome.status === 429) {
    const seconds = outcome.retryAfterSeconds;
    const message =
      outcome.budget === "token"
        ? `this token was refused too often: try again in ${seconds} s`
        : `too many wrong tokens are being tried: a wrong one is refused for ${seconds} s (a valid token is not)`;
    return {
      status: 429,
      body: { error: { code: "too_many_attempts", message } },
      headers: { "retry-after": String(seconds) },
    };
  }
  return {
    status: 401,
    body: { error: { code: "unauthorized", message: "a valid bearer token is required" } },
    headers: { "www-authenticate": 'Bearer realm="oah"' },
  };
}

/**
 * The check of what only viewers and up may read (/metrics, the controller's /snapshot): the
 * token's, then its role's (docs/spec.md §13); null when the caller is let in. Without tokens
 * everyone is the local admin.
 */
export function viewerRefusal(auth: BearerAuth | null, req: IncomingMessage, path: string): Refusal | null {
  const outcome = auth?.check(req) ?? { ok: true, actor: LOCAL_ACTOR };
  if (!outcome.ok) return authRefusal(outcome);
  if (may(outcome.actor.role, "view")) return null;
  const { name, role } = outcome.actor;
  return {
    status: 403,
    body: {
      error: {
        code: "forbidden",
        message: `${name} (${role}) may not read ${path}: it needs the ability to view`,
      },
    },
    headers: {},
  };
}

/**
 * Answers /healthz, /readyz (never behind the token) and /metrics (behind it when one is set,
 * for viewers and up); resolves to the status sent, or null for any other path.
 */
export async function serveProbe(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  options: ProbeOptions,
): Promise<number | null> {
  if (path === "/healthz") {
    sendJson(res, 200, { status: "ok" });
    return 200;
  }
  if (path === "/readyz") {
    const ready = await options.isReady().catch(() => false);
    // Commands unavailable do not make a host unready: it serves every run without them.
    const commands = options.commands && { commands: options.commands };
    sendJson(res, ready ? 200 : 503, { status: ready ? "ready" : "not_ready", ...commands });
    return ready ? 200 : 503;
  }
  if (path !== "/metrics") return null;
  const refusal = viewerRefusal(options.auth, req, path);
  if (refusal) {
    sendJson(res, refusal.status, refusal.body, refusal.headers);
    return refusal.status;
  }
  const text = await options.metrics.registry.metrics();
  res.writeHead(200, { "content-type": options.metrics.registry.contentType });
  res.end(text);
  return 200;
}
