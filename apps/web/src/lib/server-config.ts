import { createHash, timingSafeEqual } from "node:crypto";

/** Set by the console's server (scripts/serve.mjs) to the address of the client's connection. */
export const CLIENT_ADDRESS_HEADER = "x-oah-client-address";

/** The cookie that carries the operator's API token: httpOnly, SameSite=strict, never readable by scripts. */
export const TOKEN_COOKIE = "oah_console_token";

/** Where the console reaches oah-api: OAH_API_URL, else the API's default address (docs/spec.md §12). */
export function apiUrl(): string {
  const explicit = process.env.OAH_API_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  const port = process.env.OAH_PORT?.trim() || "8787";
  return `http://127.0.0.1:${port}`;
}

/**
 * Whether oah-api expects tokens (OAH_API_TOKEN, or named ones in OAH_API_TOKENS): operators must
 * sign in. The console never sends a token of its own: it forwards the one the operator signed
 * in with, checked against the API.
 */
export function tokenRequired(): boolean {
  return Boolean(process.env.OAH_API_TOKEN?.trim() || process.env.OAH_API_TOKENS?.trim());
}

/**
 * With OAH_API_TOKEN alone, the console knows the one token there is and checks a sign-in
 * against it before asking the API; with named tokens, the API alone knows them all.
 */
export function knowsTheToken(): boolean {
  return Boolean(process.env.OAH_API_TOKEN?.trim()) && !process.env.OAH_API_TOKENS?.trim();
}

/** Whether a token is the one the console is configured with (compared in constant time). */
export function matchesConfiguredToken(token: string): boolean {
  const configured = process.env.OAH_API_TOKEN?.trim();
  if (!configured) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(token), digest(configured));
}
