// @module-tag unit

import type { IncomingMessage } from "node:http";
import { AttemptLimiter, type AttemptPolicy } from "@oah/core";
import { describe, expect, it } from "vitest";
import { BearerAuth, type FailedTokenLimits } from "../src/http";

const TOKEN = "3f9c2e7a41b8d05c6e2f9a1b7c4d8e03";
const ADMIN = { ok: true, actor: { name: "admin", role: "admin" } };
const request = (authorization: string | undefined, remoteAddress = "127.0.0.1") =>
  ({ headers: { authorization }, socket: { remoteAddress } }) as unknown as IncomingMessage;

/** Limits of these policies, remembering the keys failures were counted under. */
function limits(perToken: AttemptPolicy, guessing: AttemptPolicy) {
  const keys: string[] = [];
  const counted = new (class extends AttemptLimiter {
    override failed(key: string, now?: number) {
      keys.push(key);
      super.failed(key, now);
    }
  })(perToken);
  const result: FailedTokenLimits = { perToken: counted, guessing: new AttemptLimiter(guessing, 1) };
  return { limits: result, keys };
}

const STILL = 60_000;
const authOf = (perToken: number, guessing: number) => {
  const l = limits({ burst: perToken, refillEveryMs: STILL }, { burst: guessing, refillEveryMs: STILL });
  return { auth: new BearerAuth([{ name: "admin", token: TOKEN, role: "admin" }], l.limits), keys: l.keys };
};
const status = (outcome: ReturnType<BearerAuth["check"]>) =>
  outcome.ok ? 200 : outcome.status === 429 ? `429 ${outcome.budget}` : outcome.status;

describe("the bearer check", () => {
  it.each([
    [`Bearer ${TOKEN}`, 200],
    [`bearer ${TOKEN}`, 200],
    [`Bearer ${TOKEN}x`, 401],
    ["Bearer x", 401],
    [`Bearer ${TOKEN.toUpperCase()}`, 401],
    [`Bearer ${TOKEN} extra`, 401],
    [`Bearer ${"x".repeat(10_000)}`, 401],
    ["", 401],
    [undefined, 401],
  ])("compares %j with the token, whatever its length: %s", (header, expected) => {
    expect(status(authOf(100, 100).auth.check(request(header)))).toBe(expected);
  });

  it("names the caller by the token it presents, among several", () => {
    const tokens = [
      { name: "ci", token: "c".repeat(8) + TOKEN, role: "submitter" as const },
      { name: "alice", token: `a${TOKEN}`, role: "operator" as const },
      { name: "bob", token: `b${TOKEN}`, role: "viewer" as const },
    ];
    const auth = new BearerAuth(tokens);
    for (const t of tokens) {
      expect(auth.check(request(`Bearer ${t.token}`))).toEqual({
        ok: true,
        actor: { name: t.name, role: t.role },
      });
    }
    expect(auth.check(request(`Bearer ${TOKEN}`))).toEqual({ ok: false, status: 401 });
  });

  it("slows a wrong token down by itself, never by its address: a valid token from that address is let in", () => {
    const { auth } = authOf(2, 100);
    const wrong = request(`Bearer ${TOKEN}x`);
    expect([auth.check(wrong), auth.check(wrong), auth.check(wrong)].map(status)).toEqual([
      401,
      401,
      "429 token",
    ]);
    expect(auth.check(wrong)).toMatchObject({ retryAfterSeconds: 60 });
    expect(status(auth.check(request(`Bearer ${TOKEN}y`)))).toBe(401);
    expect(auth.check(request(`Bearer ${TOKEN}`))).toEqual(ADMIN);
  });

  it("refuses every wrong token while all of them together are past the guessing budget, and still lets a valid one in", () => {
    const { auth } = authOf(10, 3);
    const guesses = ["a", "b", "c", "d", "e"].map((g) => status(auth.check(request(`Bearer ${g}${TOKEN}`))));
    expect(guesses).toEqual([401, 401, 401, "429 guessing", "429 guessing"]);
    expect(status(auth.check(request(undefined)))).toBe("429 guessing");
    for (let i = 0; i < 3; i++) expect(auth.check(request(`Bearer ${TOKEN}`, `10.0.0.${i}`))).toEqual(ADMIN);
  });

  it("counts a 429 as no failure: refusals of one token spend nothing of the guessing budget", () => {
    const { auth } = authOf(1, 3);
    const statuses = Array.from({ length: 20 }, () => status(auth.check(request("Bearer again"))));
    expect(statuses).toEqual([401, ...Array(19).fill("429 token")]);
    expect(status(auth.check(request("Bearer other-1")))).toBe(401);
    expect(status(auth.check(request("Bearer other-2")))).toBe(401);
    expect(status(auth.check(request("Bearer other-3")))).toBe("429 guessing");
  });

  it("keeps a digest of a wrong token, never the token", () => {
    const { auth, keys } = authOf(10, 10);
    auth.check(request(`Bearer ${TOKEN}-wrong`));
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(TOKEN);
    expect(keys[0]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it("forgets the least recently failing keys beyond its bound", () => {
    const limiter = new AttemptLimiter({ burst: 1, refillEveryMs: 60_000 }, 2);
    for (const client of ["a", "b", "c"]) limiter.failed(client, 0);
    expect(limiter.retryAfterMs("a", 1)).toBe(0); // forgotten
    expect(limiter.retryAfterMs("b", 1)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs("c", 1)).toBeGreaterThan(0);
  });
});
