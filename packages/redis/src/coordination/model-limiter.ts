import type { ModelLimiter } from "@oah/coordination";
import type { ModelLimit } from "@oah/core";
import type { RedisClient } from "../client";
import { type RedisKeys, redisKeys } from "../keys";
import { defineScripts, type ScriptedRedis } from "../scripts";

/** The models' capacity in Redis, one script call a take, a correction or a block. */
export class RedisModelLimiter implements ModelLimiter {
  private readonly redis: ScriptedRedis;
  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = defineScripts(redis);
    this.keys = redisKeys(prefix);
  }

  private call(op: string, model: string, limit: ModelLimit, amount: number): Promise<unknown> {
    return this.redis.oahModelLimit(
      this.keys.modelLimit(model),
      op,
      limit.requestsPerMinute ?? 0,
      limit.tokensPerMinute ?? 0,
      amount,
    );
  }

  async take(model: string, limit: ModelLimit, tokens: number): Promise<number> {
    return Number(await this.call("take", model, limit, tokens));
  }

  async settle(model: string, limit: ModelLimit, delta: number): Promise<void> {
    await this.call("settle", model, limit, delta);
  }

  async block(model: string, limit: ModelLimit, ms: number): Promise<void> {
    await this.call("block", model, limit, ms);
  }
}
