import { blockCapacity, type ModelCapacity, type ModelLimit, settleTokens, takeCapacity } from "@oah/core";

/**
 * The capacity of each model endpoint under its limits (OAH_MODEL_LIMITS), shared by every host
 * of the deployment (docs/spec.md §6, *Model limits*). The rule is @oah/core's (takeCapacity,
 * settleTokens, blockCapacity); each host gives the limits it is configured with, the same
 * everywhere. Milliseconds are the backend's clock: Redis's own over Redis.
 */
export interface ModelLimiter {
  /** Takes a request and `tokens` (an estimate) for `model`: 0, or nothing taken and how long to wait before asking again. */
  take(model: string, limit: ModelLimit, tokens: number): Promise<number>;
  /** Corrects the tokens taken for a call by `delta` (its actual tokens − the estimate). */
  settle(model: string, limit: ModelLimit, delta: number): Promise<void>;
  /** A provider's 429: no host calls `model` for `ms`, and the rate is lowered after it. */
  block(model: string, limit: ModelLimit, ms: number): Promise<void>;
}

/** One process: the capacity in its memory. */
export class LocalModelLimiter implements ModelLimiter {
  private readonly capacity = new Map<string, ModelCapacity>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(model: string, limit: ModelLimit, tokens: number): Promise<number> {
    const { waitMs, capacity } = takeCapacity(this.capacity.get(model) ?? null, limit, tokens, this.now());
    this.capacity.set(model, capacity);
    return waitMs;
  }

  async settle(model: string, limit: ModelLimit, delta: number): Promise<void> {
    this.capacity.set(model, settleTokens(this.capacity.get(model) ?? null, limit, delta, this.now()));
  }

  async block(model: string, limit: ModelLimit, ms: number): Promise<void> {
    this.capacity.set(model, blockCapacity(this.capacity.get(model) ?? null, limit, ms, this.now()));
  }
}
