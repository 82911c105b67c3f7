import type { ModelLimiter } from "@oah/coordination";
import { DEFAULT_RETRY_AFTER_MS, estimateTokens, MAX_THROTTLED_ANSWERS, type ModelLimit } from "@oah/core";
import { type Clock, sleep } from "../../clock";
import type { EngineObservers } from "../../observers";
import { RunFailure } from "../../run-failure";
import type { ModelReply } from "./model-client";

/** The provider answered 429: `retryAfterMs` from its Retry-After, null without a readable one. */
export class ModelThrottled extends RunFailure {
  constructor(
    readonly retryAfterMs: number | null,
    message: string,
  ) {
    super("model_rate_limited", message);
  }
}

/** The limits of the models (OAH_MODEL_LIMITS) and the fleet's capacity under them. */
export interface ModelLimits {
  limiter: ModelLimiter;
  /** By model name; "*" for the models not named. */
  limits: Record<string, ModelLimit>;
  /** OAH_MODEL_LIMIT_MAX_WAIT_MS: how long one call may wait, Retry-After included. */
  maxWaitMs: number;
  /** The host's time, which the waits are measured and slept on. */
  clock: Clock;
  /** Told of each wait for capacity and each 429 (for /metrics). */
  observers?: Pick<EngineObservers, "modelWaited" | "modelThrottled">;
  /**
   * The limiter could not be reached (Redis down): the call goes on unlimited rather than fail
   * its run, as model calls did before there were limits; told here, for the log.
   */
  unreachable?: (error: unknown, model: string) => void;
}

const NO_LIMIT: ModelLimit = { requestsPerMinute: null, tokensPerMinute: null };

/**
 * The limiter, but that a call it cannot answer (its store unreachable) lets the model call go:
 * a limit is a courtesy to the provider, never a reason to fail a run.
 */
function failingOpen({ limiter, unreachable }: ModelLimits, model: string): ModelLimiter {
  const open =
    <A extends unknown[], T>(op: (...args: A) => Promise<T>, fallback: T) =>
    async (...args: A): Promise<T> => {
      try {
        return await op(...args);
      } catch (error) {
        unreachable?.(error, model);
        return fallback;
      }
    };
  return {
    take: open(limiter.take.bind(limiter), 0),
    settle: open(limiter.settle.bind(limiter), undefined),
    block: open(limiter.block.bind(limiter), undefined),
  };
}

/** What a limited call records on its run (docs/spec.md §6, *Model limits*). */
export interface LimitRecord {
  waited(ms: number): Promise<unknown>;
  throttled(retryAfterMs: number): Promise<unknown>;
}

/**
 * `call` once the fleet has capacity for it: a request and its reckoned tokens taken, waiting
 * as long as the limiter says (the run stays running), the reckoning corrected by the answer's
 * usage. A 429 blocks the model for every host for its Retry-After, and the call is made again
 * after it. Fails with `model_rate_limited` when the waits would pass `maxWaitMs`, or after
 * MAX_THROTTLED_ANSWERS 429s. Every model goes through the limiter, limited or not, so that a
 * 429 holds back the whole fleet.
 */
export async function underLimits(
  limits: ModelLimits | undefined,
  model: string,
  promptChars: number,
  signal: AbortSignal,
  record: LimitRecord,
  call: () => Promise<ModelReply>,
): Promise<ModelReply> {
  if (!limits) return call();
  const { maxWaitMs, observers, clock } = limits;
  const limiter = failingOpen(limits, model);
  const named = (name: string) => (Object.hasOwn(limits.limits, name) ? limits.limits[name] : undefined);
  const limit = named(model) ?? named("*") ?? NO_LIMIT;
  const estimate = estimateTokens(promptChars);
  const started = clock.now();
  for (let throttled = 0; ; ) {
    const waitStarted = clock.now();
    let slept = false;
    // A wait that ends, given up or not, is on the run's record.
    const waited = async () => {
      if (!slept) return;
      const ms = clock.now() - waitStarted;
      observers?.modelWaited?.({ model, ms });
      await record.waited(ms);
    };
    for (let waitMs = await limiter.take(model, limit, estimate); waitMs > 0; ) {
      if (clock.now() + waitMs - started > maxWaitMs) {
        await waited();
        throw new RunFailure(
          "model_rate_limited",
          `no capacity for ${model} under OAH_MODEL_LIMITS within ${maxWaitMs} ms (OAH_MODEL_LIMIT_MAX_WAIT_MS)`,
        );
      }
      await sleep(clock, waitMs, signal);
      // A cancel or the run's timeout ends the wait, and the call with it.
      signal.throwIfAborted();
      slept = true;
      waitMs = await limiter.take(model, limit, estimate);
    }
    await waited();
    try {
      const reply = await call();
      if (limit.tokensPerMinute !== null) {
        await limiter.settle(model, limit, (reply.usage?.totalTokens ?? estimate) - estimate);
      }
      return reply;
    } catch (error) {
      if (!(error instanceof ModelThrottled)) throw error;
      const ms = error.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
      await limiter.block(model, limit, ms);
      observers?.modelThrottled?.({ model });
      await record.throttled(ms);
      if (++throttled >= MAX_THROTTLED_ANSWERS) {
        throw new RunFailure("model_rate_limited", `${error.message} (${throttled} times; giving up)`);
      }
    }
  }
}
