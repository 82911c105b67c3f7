import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { type Actor, AttemptLimiter, type NamedToken } from "@oah/core";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether two secrets are equal, in a time that tells nothing of either, their lengths included. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export type AuthOutcome =
  | { ok: true; actor: Actor }
  | { ok: false; status: 401 }
  | { ok: false; status: 429; retryAfterSeconds: number };

/**
 * The bearer check of every call but the health probes (OAH_API_TOKEN, OAH_API_TOKENS): the
 * token compared in constant time with every known one (the time tells neither which nor how
 * close), its name and role the call's actor; a client address that keeps failing is slowed
 * down (FAILED_AUTH_POLICY: past its burst it is refused with 429 until an attempt has come
 * back, its token unread).
 */
export class BearerAuth {
  constructor(
    private readonly tokens: readonly NamedToken[],
    private readonly limiter = new AttemptLimiter(),
  ) {}

  check(req: IncomingMessage): AuthOutcome {
    const client = req.socket.remoteAddress ?? "unknown";
    const wait = this.limiter.retryAfterMs(client);
    if (wait > 0) return { ok: false, status: 429, retryAfterSeconds: Math.ceil(wait / 1000) };
    const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
    let found: NamedToken | undefined;
    // Every token is compared, found or not.
    if (match) for (const known of this.tokens) if (sameSecret(match[1]!, known.token)) found ??= known;
    if (found) return { ok: true, actor: { name: found.name, role: found.role } };
    this.limiter.failed(client);
    return { ok: false, status: 401 };
  }
}

/** The check of a server whose tokens these are; null when there is none (the loopback default). */
export const bearerAuthOf = (tokens: readonly NamedToken[]): BearerAuth | null =>
  tokens.length > 0 ? new BearerAuth(tokens) : null;
