// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  type AttemptBucket,
  AttemptLimiter,
  type AttemptPolicy,
  afterFailure,
  isVariedSecret,
  refilled,
  retryAfterMs,
} from "../src";

const policy: AttemptPolicy = { burst: 3, refillEveryMs: 1_000 };

/** The bucket after failures at these times. */
const failures = (...times: number[]) =>
  times.reduce<AttemptBucket | undefined>((bucket, at) => afterFailure(bucket, at, policy), undefined);

describe("failed attempts per client", () => {
  it.each([
    ["a new client", [], 0, 0],
    ["two failures", [0, 0], 0, 0],
    ["the burst spent", [0, 0, 0], 0, 1_000],
    ["the burst spent, half a refill later", [0, 0, 0], 500, 500],
    ["the burst spent, one refill later", [0, 0, 0], 1_000, 0],
    ["failing again at once after the refill", [0, 0, 0, 1_000], 1_000, 1_000],
    ["failing on and on", [0, 0, 0, 1_000, 2_000, 3_000], 3_100, 900],
    ["a long pause refills the burst, not more", [0, 0, 0], 60_000, 0],
  ] as const)("%s: failures at %j, asked at %i → retry after %i ms", (_name, times, now, expected) => {
    expect(retryAfterMs(failures(...times), now, policy)).toBe(expected);
  });

  it("takes an attempt only while the client has one: a refused one costs nothing", () => {
    const limiter = new AttemptLimiter(policy);
    expect([0, 0, 0, 0].map((at) => limiter.take("ops", at))).toEqual([0, 0, 0, 1_000]);
    expect(limiter.take("ops", 999)).toBe(1);
    expect(limiter.take("ops", 1_000)).toBe(0);
    expect(limiter.take("ops", 1_000)).toBe(1_000);
    expect(limiter.take("other", 1_000)).toBe(0);
  });

  it("refills whole attempts and keeps the part of a refill already waited", () => {
    const spent = failures(0, 0, 0)!;
    expect(refilled(spent, 2_500, policy)).toEqual({ left: 2, at: 2_000 });
    expect(refilled(spent, 3_000, policy)).toEqual({ left: 3, at: 3_000 });
    expect(refilled(spent, 60_000, policy)).toEqual({ left: 3, at: 60_000 });
  });

  it.each([
    ["openssl rand -hex 16", "3f9c2e7a41b8d05c6e2f9a1b7c4d8e03", true],
    ["32 of one letter", "a".repeat(32), false],
    ["two characters repeated", "12".repeat(16), false],
    ["varied but short", "3f9c2e7a41b8d05c", false],
    ["a passphrase", "correct horse battery staple 2026", true],
  ])("a token like %s is accepted: %s", (_name, token, ok) => {
    expect(isVariedSecret(token)).toBe(ok);
  });
});
