/**
 * The limits of a model endpoint (OAH_MODEL_LIMITS), shared by every host of the fleet
 * (docs/spec.md §6, *Model limits*). Null: no limit of that kind.
 */
export interface ModelLimit {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
}

/** One bucket: its level (negative after a call that cost more than it held) and when it was last refilled. */
export interface BucketLevel {
  level: number;
  at: number;
}

/**
 * The capacity left for one model, as the in-process limiter keeps it and the Redis script
 * (lua/model-limit-1.lua) stores it: a bucket of requests, one of tokens, until when a
 * provider's 429 stops every call (`blockedUntil`), and until when the buckets refill at half
 * their rate after it (`slowUntil`). Epoch milliseconds.
 */
export interface ModelCapacity {
  requests: BucketLevel;
  tokens: BucketLevel;
  blockedUntil: number;
  slowUntil: number;
}

/**
 * A bucket holds a tenth of the minute's allowance and refills at the other nine tenths over
 * the minute: however the calls fall, in any 60 s at most the limit is taken (a full bucket
 * plus 60 s of refill), which a plain bucket holding a whole minute (up to twice the limit in a
 * minute) does not promise. The price: at saturation, 90 % of the limit.
 */
export const BUCKET_SHARE = 0.1;
/** After a 429, the buckets refill at this share of their rate, for this long after the block ends. */
export const SLOW_RATE_SHARE = 0.5;
export const SLOW_AFTER_BLOCK_MS = 60_000;
/** A 429 without a readable Retry-After blocks the calls this long. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
/** How many 429s one call takes before it fails with `model_rate_limited`, whatever its Retry-After. */
export const MAX_THROTTLED_ANSWERS = 5;
/** What a call's answer is reckoned to cost on top of its prompt until its usage is known. */
export const COMPLETION_TOKENS_ESTIMATE = 256;

interface BucketRule {
  capacity: number;
  /** Refill, per millisecond. */
  rate: number;
}

function ruleOf(perMinute: number): BucketRule {
  return { capacity: perMinute * BUCKET_SHARE, rate: (perMinute * (1 - BUCKET_SHARE)) / 60_000 };
}

/** A model with no capacity record: both buckets full. */
export function fullCapacity(limit: ModelLimit, now: number): ModelCapacity {
  const full = (perMinute: number | null) => ({
    level: perMinute === null ? 0 : ruleOf(perMinute).capacity,
    at: now,
  });
  return {
    requests: full(limit.requestsPerMinute),
    tokens: full(limit.tokensPerMinute),
    blockedUntil: 0,
    slowUntil: 0,
  };
}

/** The bucket refilled up to `now`: at the slow rate for the part of the time before `slowUntil`. */
function refill(bucket: BucketLevel, rule: BucketRule, slowUntil: number, now: number): BucketLevel {
  if (now <= bucket.at) return bucket;
  const slowMs = Math.max(0, Math.min(now, slowUntil) - bucket.at);
  const normalMs = now - bucket.at - slowMs;
  const gained = rule.rate * (normalMs + slowMs * SLOW_RATE_SHARE);
  return { level: Math.min(rule.capacity, bucket.level + gained), at: now };
}

function refilled(capacity: ModelCapacity, limit: ModelLimit, now: number): ModelCapacity {
  const one = (bucket: BucketLevel, perMinute: number | null) =>
    perMinute === null ? { level: 0, at: now } : refill(bucket, ruleOf(perMinute), capacity.slowUntil, now);
  return {
    ...capacity,
    requests: one(capacity.requests, limit.requestsPerMinute),
    tokens: one(capacity.tokens, limit.tokensPerMinute),
  };
}

/**
 * How long until the bucket holds `cost`, or its whole capacity when the cost is more than it
 * can hold (such a call is let through on a full bucket and leaves it in debt).
 */
function waitFor(bucket: BucketLevel, perMinute: number | null, cost: number, slow: boolean): number {
  if (perMinute === null) return 0;
  const rule = ruleOf(perMinute);
  const need = Math.min(cost, rule.capacity);
  if (bucket.level >= need) return 0;
  return Math.ceil((need - bucket.level) / (rule.rate * (slow ? SLOW_RATE_SHARE : 1)));
}

export interface CapacityTaken {
  /** 0: a request and the tokens were taken; otherwise nothing was, and this is when to ask again. */
  waitMs: number;
  capacity: ModelCapacity;
}

/** Takes one request and `tokens` (an estimate) from the model's capacity, both or neither. */
export function takeCapacity(
  capacity: ModelCapacity | null,
  limit: ModelLimit,
  tokens: number,
  now: number,
): CapacityTaken {
  const current = refilled(capacity ?? fullCapacity(limit, now), limit, now);
  if (now < current.blockedUntil) return { waitMs: current.blockedUntil - now, capacity: current };
  const slow = now < current.slowUntil;
  const waitMs = Math.max(
    waitFor(current.requests, limit.requestsPerMinute, 1, slow),
    waitFor(current.tokens, limit.tokensPerMinute, tokens, slow),
  );
  if (waitMs > 0) return { waitMs, capacity: current };
  return {
    waitMs: 0,
    capacity: {
      ...current,
      requests: { ...current.requests, level: current.requests.level - 1 },
      tokens: { ...current.tokens, level: current.tokens.level - tokens },
    },
  };
}

/** A call's actual tokens known: the estimate taken is corrected by `delta` (actual − estimate). */
export function settleTokens(
  capacity: ModelCapacity | null,
  limit: ModelLimit,
  delta: number,
  now: number,
): ModelCapacity {
  const current = refilled(capacity ?? fullCapacity(limit, now), limit, now);
  if (limit.tokensPerMinute === null) return current;
  const { capacity: most } = ruleOf(limit.tokensPerMinute);
  return { ...current, tokens: { ...current.tokens, level: Math.min(most, current.tokens.level - delta) } };
}

/**
 * A provider's 429: no call for `ms`, the buckets emptied (what the provider counted is more
 * than they held), and half their rate for a minute after the block.
 */
export function blockCapacity(
  capacity: ModelCapacity | null,
  limit: ModelLimit,
  ms: number,
  now: number,
): ModelCapacity {
  const current = refilled(capacity ?? fullCapacity(limit, now), limit, now);
  const blockedUntil = Math.max(current.blockedUntil, now + ms);
  const emptied = (bucket: BucketLevel) => ({ level: Math.min(bucket.level, 0), at: blockedUntil });
  return {
    requests: emptied(current.requests),
    tokens: emptied(current.tokens),
    blockedUntil,
    slowUntil: blockedUntil + SLOW_AFTER_BLOCK_MS,
  };
}

/**
 * A Retry-After header in milliseconds from `now`: seconds (fractions allowed), or an HTTP
 * date; null when absent or unreadable.
 */
export function retryAfterHeaderMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === "") return null;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** What a call is reckoned to cost before its usage is known: about 4 characters a token, and an answer. */
export function estimateTokens(promptChars: number): number {
  return Math.ceil(promptChars / 4) + COMPLETION_TOKENS_ESTIMATE;
}
