import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { type Actor, AttemptLimiter, GUESSING_POLICY, type NamedToken } from "@oah/core";

/** Of the same length whatever the token: compared in a time that tells nothing of its length. */
const digest = (value: string) => createHash("sha256").update(value).digest();

export type AuthOutcome =
  | { ok: true; actor: Actor }
  | { ok: false; status: 401 }
  /** `token`: this wrong token was tried too often; `guessing`: wrong tokens come too fast, whoever sends them. */
  | { ok: false; status: 429; retryAfterSeconds: number; budget: "token" | "guessing" };

/** How failures are counted: per wrong token (its digest), and all wrong tokens together. */
export interface FailedTokenLimits {
  perToken: AttemptLimiter;
  guessing: AttemptLimiter;
}

const defaultLimits = (): FailedTokenLimits => ({
  perToken: new AttemptLimiter(),
  guessing: new AttemptLimiter(GUESSING_POLICY, 1),
});

/** The one key of the guessing budget: every wrong token counts against it. */
const EVERYONE = "*";

/**
 * The bearer check of every call but the health probes (OAH_API_TOKEN, OAH_API_TOKENS). The
 * token presented is compared in constant time with every known one (the time tells neither
 * which nor how close), and a known one is let in whatever others did: its name and role are
 * the call's actor. A wrong one is slowed down, never by where it comes from (every local
 * client and the console share 127.0.0.1): the same wrong token past FAILED_AUTH_POLICY, or any
 * wrong token while all of them together are past GUESSING_POLICY, is refused with 429 until an
 * attempt has come back, and that refusal counts as no failure. Only digests are kept.
 */
export class BearerAuth {
  private readonly known: { digest: Buffer; actor: Actor }[];

  constructor(
    tokens: readonly NamedToken[],
    private readonly limits: FailedTokenLimits = defaultLimits(),
  ) {
    this.known = tokens.map((t) => ({ digest: digest(t.token), actor: { name: t.name, role: t.role } }));
  }

  check(req: IncomingMessage): AuthOutcome {
    const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
    const presented = digest(match?.[1] ?? "");
    let found: Actor | undefined;
    // Every token is compared, found or not.
    for (const known of this.known) if (timingSafeEqual(presented, known.digest)) found ??= known.actor;
    if (found) return { ok: true, actor: found };
    const key = presented.toString("base64");
    const now = Date.now();
    const ownWait = this.limits.perToken.retryAfterMs(key, now);
    const everyonesWait = this.limits.guessing.retryAfterMs(EVERYONE, now);
    if (ownWait > 0 || everyonesWait > 0) {
      const retryAfterSeconds = Math.ceil(Math.max(ownWait, everyonesWait) / 1000);
      return { ok: false, status: 429, retryAfterSeconds, budget: ownWait > 0 ? "token" : "guessing" };
    }
    this.limits.perToken.failed(key, now);
    this.limits.guessing.failed(EVERYONE, now);
    return { ok: false, status: 401 };
  }
}

/** The check of a server whose tokens these are; null when there is none (the loopback default). */
export const bearerAuthOf = (tokens: readonly NamedToken[]): BearerAuth | null =>
  tokens.length > 0 ? new BearerAuth(tokens) : null;
