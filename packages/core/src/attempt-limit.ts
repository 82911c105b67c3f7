/**
 * How fast one client may try something: a token bucket of attempts (wrong bearer tokens and
 * refused sign-ins, which count only when they fail; operator actions, which all count). A
 * client holds `burst` attempts; each counted attempt takes one; one comes back every
 * `refillEveryMs`. With none left, the client is refused at once, without its token or its
 * call being looked at, until one has come back.
 */
export interface AttemptPolicy {
  burst: number;
  refillEveryMs: number;
}

/** 10 failures at once, then one every 6 s (10 a minute): of one wrong token, or one browser's sign-ins. */
export const FAILED_AUTH_POLICY: AttemptPolicy = { burst: 10, refillEveryMs: 6_000 };

/**
 * Every wrong token together, whoever presents it: 100 at once, then one every 100 ms (10 a
 * second). Past it wrong tokens are refused (429) until one has come back; a valid token is
 * compared first and never refused by it, so that nobody's guessing can lock anyone out.
 */
export const GUESSING_POLICY: AttemptPolicy = { burst: 100, refillEveryMs: 100 };

export interface AttemptBucket {
  /** Attempts left, as of `at`. */
  left: number;
  at: number;
}

/** The bucket as of `now`: refilled for the time passed (whole attempts only), never above the burst. */
export function refilled(
  bucket: AttemptBucket | undefined,
  now: number,
  policy: AttemptPolicy,
): AttemptBucket {
  if (!bucket) return { left: policy.burst, at: now };
  const gained = Math.floor((now - bucket.at) / policy.refillEveryMs);
  if (gained <= 0) return bucket;
  const left = Math.min(policy.burst, bucket.left + gained);
  return { left, at: left === policy.burst ? now : bucket.at + gained * policy.refillEveryMs };
}

/** 0 when the client may try now; else how long until it may. */
export function retryAfterMs(bucket: AttemptBucket | undefined, now: number, policy: AttemptPolicy): number {
  const current = refilled(bucket, now, policy);
  return current.left > 0 ? 0 : current.at + policy.refillEveryMs - now;
}

/** The bucket after one failure at `now`. */
export function afterFailure(
  bucket: AttemptBucket | undefined,
  now: number,
  policy: AttemptPolicy,
): AttemptBucket {
  const current = refilled(bucket, now, policy);
  return { left: Math.max(0, current.left - 1), at: current.at };
}

/**
 * The attempt buckets of clients by key (a browser's address, a wrong token's digest), bounded:
 * the least recently failing are forgotten first.
 */
export class AttemptLimiter {
  private readonly buckets = new Map<string, AttemptBucket>();

  constructor(
    private readonly policy: AttemptPolicy = FAILED_AUTH_POLICY,
    private readonly maxClients = 10_000,
  ) {}

  /** 0 when the client may try now; else the milliseconds until it may. */
  retryAfterMs(client: string, now = Date.now()): number {
    return retryAfterMs(this.buckets.get(client), now, this.policy);
  }

  /** Counts an attempt the client may make now and answers 0; else the milliseconds until it may. */
  take(client: string, now = Date.now()): number {
    const wait = this.retryAfterMs(client, now);
    if (wait === 0) this.failed(client, now);
    return wait;
  }

  failed(client: string, now = Date.now()): void {
    const next = afterFailure(this.buckets.get(client), now, this.policy);
    this.buckets.delete(client);
    this.buckets.set(client, next);
    if (this.buckets.size > this.maxClients) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}

/**
 * Whether a secret has some variety: at least `minLength` characters, at least 8 of them
 * different (so that `aaaa…` or `12121212…` is refused as a token).
 */
export function isVariedSecret(value: string, minLength = 32): boolean {
  return value.length >= minLength && new Set(value).size >= 8;
}
