import type { IncomingMessage } from "node:http";
import { AttemptLimiter } from "@oah/core";
import { describe, expect, it } from "vitest";
import { BearerAuth, sameSecret } from "../src/http";

const TOKEN = "3f9c2e7a41b8d05c6e2f9a1b7c4d8e03";
const request = (authorization: string | undefined, remoteAddress = "10.0.0.1") =>
  ({ headers: { authorization }, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe("the bearer check", () => {
  it.each([
    [TOKEN, TOKEN, true],
    [`${TOKEN}x`, TOKEN, false],
    ["", TOKEN, false],
    ["x", TOKEN, false],
    [TOKEN.toUpperCase(), TOKEN, false],
  ])("compares %j with the token without throwing on any length: %s", (given, expected, same) => {
    expect(sameSecret(given, expected)).toBe(same);
  });

  it("counts failures per client address, and lets the others in", () => {
    const tokens = [{ name: "admin", token: TOKEN, role: "admin" as const }];
    const auth = new BearerAuth(tokens, new AttemptLimiter({ burst: 2, refillEveryMs: 60_000 }));
    const admin = { ok: true, actor: { name: "admin", role: "admin" } };
    expect(auth.check(request("Bearer nope"))).toEqual({ ok: false, status: 401 });
    expect(auth.check(request(undefined))).toEqual({ ok: false, status: 401 });
    expect(auth.check(request(`Bearer ${TOKEN}`))).toMatchObject({ ok: false, status: 429 });
    expect(auth.check(request(`Bearer ${TOKEN}`, "10.0.0.2"))).toEqual(admin);
    expect(auth.check(request(`bearer ${TOKEN}`, "10.0.0.2"))).toEqual(admin);
    expect(auth.check(request(`Bearer ${TOKEN} extra`, "10.0.0.2"))).toEqual({ ok: false, status: 401 });
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

  it("forgets the least recently failing clients beyond its bound", () => {
    const limiter = new AttemptLimiter({ burst: 1, refillEveryMs: 60_000 }, 2);
    for (const client of ["a", "b", "c"]) limiter.failed(client, 0);
    expect(limiter.retryAfterMs("a", 1)).toBe(0); // forgotten
    expect(limiter.retryAfterMs("b", 1)).toBeGreaterThan(0);
    expect(limiter.retryAfterMs("c", 1)).toBeGreaterThan(0);
  });
});
