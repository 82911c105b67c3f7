// @module-tag unit

import { describe, expect, it } from "vitest";
import {
  blockCapacity,
  estimateTokens,
  fullCapacity,
  type ModelCapacity,
  type ModelLimit,
  retryAfterHeaderMs,
  settleTokens,
  takeCapacity,
} from "../src";

const RPM_600: ModelLimit = { requestsPerMinute: 600, tokensPerMinute: null };
const TPM_6000: ModelLimit = { requestsPerMinute: null, tokensPerMinute: 6_000 };

/** Takes `n` calls of `tokens` each at `now`, as long as they are let through; how many were. */
function takeAll(
  limit: ModelLimit,
  n: number,
  tokens: number,
  now: number,
  from: ModelCapacity | null = null,
) {
  let capacity = from;
  let taken = 0;
  let waitMs = 0;
  for (let i = 0; i < n; i++) {
    const result = takeCapacity(capacity, limit, tokens, now);
    capacity = result.capacity;
    if (result.waitMs > 0) {
      waitMs = result.waitMs;
      break;
    }
    taken++;
  }
  return { taken, waitMs, capacity };
}

describe("takeCapacity", () => {
  // name, limit, calls at once, tokens each, taken, then the wait before the next
  const TABLE: [string, ModelLimit, number, number, number, number][] = [
    ["600 rpm: a full bucket is a tenth of the minute", RPM_600, 100, 0, 60, 112],
    ["600 rpm, fewer calls than the bucket", RPM_600, 10, 0, 10, 0],
    ["6000 tpm: the bucket holds 600 tokens", TPM_6000, 10, 200, 3, 2_223],
    [
      "6000 tpm: a call costing more than the bucket passes on a full one, into debt",
      TPM_6000,
      2,
      1_000,
      1,
      11_112,
    ],
    [
      "no limits: nothing ever waits",
      { requestsPerMinute: null, tokensPerMinute: null },
      1_000,
      1_000,
      1_000,
      0,
    ],
  ];
  it.each(TABLE)("%s", (_name, limit, n, tokens, taken, waitMs) => {
    const result = takeAll(limit, n, tokens, 1_000);
    expect(result.taken).toBe(taken);
    expect(result.waitMs).toBe(waitMs);
  });

  it("a request and its tokens are taken both or neither", () => {
    const limit = { requestsPerMinute: 600, tokensPerMinute: 6_000 };
    const { capacity } = takeAll(limit, 3, 200, 0);
    const refused = takeCapacity(capacity, limit, 200, 0);
    expect(refused.waitMs).toBeGreaterThan(0);
    expect(refused.capacity.requests.level).toBe(capacity?.requests.level);
  });

  it("never lets more than the limit through in any minute, however the calls fall", () => {
    const limit = RPM_600;
    let capacity: ModelCapacity | null = null;
    const takenAt: number[] = [];
    // Calls as fast as capacity allows for three minutes, asked at every millisecond a wait names.
    for (let now = 0; now < 180_000; ) {
      const result = takeCapacity(capacity, limit, 0, now);
      capacity = result.capacity;
      if (result.waitMs === 0) takenAt.push(now);
      else now += result.waitMs;
    }
    let most = 0;
    for (let i = 0, j = 0; i < takenAt.length; i++) {
      while ((takenAt[i] as number) - (takenAt[j] as number) >= 60_000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBeLessThanOrEqual(600);
    expect(most).toBeGreaterThan(590);
  });
});

describe("settleTokens", () => {
  it("gives back what the estimate took too much, never above the bucket", () => {
    const { capacity } = takeAll(TPM_6000, 1, 500, 0);
    expect(settleTokens(capacity, TPM_6000, -400, 0).tokens.level).toBe(500);
    expect(settleTokens(capacity, TPM_6000, -10_000, 0).tokens.level).toBe(600);
  });

  it("takes what the answer cost more than reckoned", () => {
    const { capacity } = takeAll(TPM_6000, 1, 100, 0);
    expect(settleTokens(capacity, TPM_6000, 900, 0).tokens.level).toBe(-400);
  });
});

describe("blockCapacity", () => {
  it("stops every call until the block ends, then refills at half the rate", () => {
    const blocked = blockCapacity(fullCapacity(RPM_600, 0), RPM_600, 2_000, 0);
    expect(takeCapacity(blocked, RPM_600, 0, 1_999).waitMs).toBe(1);
    // At the block's end the bucket is empty; a request takes 1/9 s at the full rate, 2/9 s at half.
    expect(takeCapacity(blocked, RPM_600, 0, 2_000).waitMs).toBe(223);
    expect(takeCapacity(blocked, RPM_600, 0, 2_223).waitMs).toBe(0);
  });

  it("a later 429 with a shorter Retry-After does not shorten the block", () => {
    const first = blockCapacity(null, RPM_600, 5_000, 0);
    expect(blockCapacity(first, RPM_600, 1_000, 100).blockedUntil).toBe(5_000);
  });
});

describe("retryAfterHeaderMs", () => {
  const NOW = Date.parse("2026-12-04T20:00:00Z");
  const TABLE: [string | null, number | null][] = [
    ["2", 2_000],
    ["0.5", 500],
    [" 3 ", 3_000],
    ["Fri, 04 Dec 2026 20:00:07 GMT", 7_000],
    ["Fri, 04 Dec 2026 19:00:00 GMT", 0],
    ["soon", null],
    ["", null],
    [null, null],
  ];
  it.each(TABLE)("Retry-After %j → %j ms", (header, ms) => {
    expect(retryAfterHeaderMs(header, NOW)).toBe(ms);
  });
});

describe("estimateTokens", () => {
  it("reckons a token per 4 characters of the prompt, and an answer", () => {
    expect(estimateTokens(400)).toBe(356);
  });
});
