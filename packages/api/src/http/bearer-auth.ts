import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { AttemptLimiter } from "@oah/core";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether two secrets are equal, in a time that tells nothing of either, their lengths included. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export type AuthOutcome =
  | { ok: true }
  | { ok: false; status: 401 }
  | { ok: false; status: 429; retryAfterSeconds: number };

/**
 * The bearer check of every call but the health probes (OAH_API_TOKEN): the token compared
 * in constant time, and a client address that keeps failing slowed down (FAILED_AUTH_POLICY:
 * past its burst it is refused with 429 until an attempt has come back, its token unread).
 */
export class BearerAuth {
  constructor(
    private readonly token: string,
    private readonly limiter = new AttemptLimiter(),
  ) {}

  check(req: IncomingMessage): AuthOutcome {
    const client = req.socket.remoteAddress ?? "unknown";
    const wait = this.limiter.retryAfterMs(client);
    if (wait > 0) return { ok: false, status: 429, retryAfterSeconds: Math.ceil(wait / 1000) };
    const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
    if (match && sameSecret(match[1]!, this.token)) return { ok: true };
    this.limiter.failed(client);
    return { ok: false, status: 401 };
  }
}
