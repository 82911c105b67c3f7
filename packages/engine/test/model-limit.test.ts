// @module-tag unit

import { LocalModelLimiter } from "@oah/coordination";
import type { ModelLimit } from "@oah/core";
import { describe, expect, it } from "vitest";
import { systemClock } from "../src/clock";
import type { ModelReply } from "../src/executors/model/model-client";
import { type ModelLimits, ModelThrottled, underLimits } from "../src/executors/model/model-limit";
import { RunFailure } from "../src/run-failure";

const RPM_600: ModelLimit = { requestsPerMinute: 600, tokensPerMinute: null };
const REPLY: ModelReply = { content: "ok", toolCalls: [], usage: null, finishReason: "stop" };

/** A run's record of its waits and 429s, and the calls made, with when. */
function harness(limits: Partial<ModelLimits> & { limit?: ModelLimit } = {}) {
  const limiter = limits.limiter ?? new LocalModelLimiter();
  const record: { waited: number[]; throttled: number[] } = { waited: [], throttled: [] };
  const calls: number[] = [];
  const observed: string[] = [];
  const config: ModelLimits = {
    limiter,
    limits: { m: limits.limit ?? RPM_600 },
    maxWaitMs: limits.maxWaitMs ?? 10_000,
    clock: systemClock,
    unreachable: (_error, model) => observed.push(`unreachable ${model}`),
    observers: {
      modelWaited: () => observed.push("waited"),
      modelThrottled: () => observed.push("throttled"),
    },
  };
  const run = (answers: (() => ModelReply)[] = [], signal = new AbortController().signal) =>
    underLimits(
      config,
      "m",
      40,
      signal,
      {
        waited: async (ms) => record.waited.push(ms),
        throttled: async (ms) => record.throttled.push(ms),
      },
      async () => {
        calls.push(Date.now());
        return (answers.shift() ?? (() => REPLY))();
      },
    );
  return { limiter, record, calls, observed, run };
}

const drain = async (limiter: LocalModelLimiter, n = 60) => {
  for (let i = 0; i < n; i++) await limiter.take("m", RPM_600, 0);
};

describe("underLimits", () => {
  it("calls all the same when the limiter cannot be reached (Redis down), and says so", async () => {
    const down = new Error("connect ECONNREFUSED");
    const h = harness({
      limiter: {
        take: () => Promise.reject(down),
        settle: () => Promise.reject(down),
        block: () => Promise.reject(down),
      },
      limit: { requestsPerMinute: 1, tokensPerMinute: 100 },
    });
    expect(await h.run()).toBe(REPLY);
    expect(h.calls).toHaveLength(1);
    expect(h.observed).toEqual(["unreachable m", "unreachable m"]);
  });

  it("calls at once while there is capacity, recording no wait", async () => {
    const h = harness();
    expect(await h.run()).toBe(REPLY);
    expect(h.record).toEqual({ waited: [], throttled: [] });
  });

  it("waits for capacity, then records the wait on the run and for /metrics", async () => {
    const h = harness();
    await drain(h.limiter as LocalModelLimiter);
    const asked = Date.now();
    await h.run();
    expect((h.calls[0] as number) - asked).toBeGreaterThanOrEqual(100);
    expect(h.record.waited).toHaveLength(1);
    expect(h.record.waited[0]).toBeGreaterThanOrEqual(100);
    expect(h.observed).toEqual(["waited"]);
  });

  it("fails with model_rate_limited at once when the wait would pass the bound, never calling", async () => {
    const h = harness({ maxWaitMs: 50 });
    await drain(h.limiter as LocalModelLimiter);
    const asked = Date.now();
    await expect(h.run()).rejects.toMatchObject({ code: "model_rate_limited" });
    expect(Date.now() - asked).toBeLessThan(50);
    expect(h.calls).toEqual([]);
  });

  it("after a 429 blocks the model for its Retry-After, for every call, then calls again", async () => {
    const h = harness();
    const throttled = () => {
      throw new ModelThrottled(300, "429");
    };
    await h.run([throttled]);
    expect(h.record.throttled).toEqual([300]);
    expect(h.calls).toHaveLength(2);
    expect((h.calls[1] as number) - (h.calls[0] as number)).toBeGreaterThanOrEqual(300);
    expect(await h.limiter.take("m", RPM_600, 0)).toBeGreaterThan(0);
    expect(h.observed).toEqual(["throttled", "waited"]);
  });

  it("gives up after five 429s with model_rate_limited", async () => {
    const h = harness({ limit: { requestsPerMinute: null, tokensPerMinute: null } });
    const throttled = () => {
      throw new ModelThrottled(0, "the model endpoint answered 429");
    };
    const failure = await h.run(Array.from({ length: 9 }, () => throttled)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailure);
    expect(failure).toMatchObject({ code: "model_rate_limited" });
    expect(h.calls).toHaveLength(5);
  });

  it("a cancel ends the wait, and no call is made", async () => {
    const h = harness();
    await drain(h.limiter as LocalModelLimiter);
    const cancel = new AbortController();
    const running = h.run([], cancel.signal);
    cancel.abort();
    await expect(running).rejects.toThrow();
    expect(h.calls).toEqual([]);
  });

  it("a model named like an object's own property is given no limit, not that property", async () => {
    const given: ModelLimit[] = [];
    const limiter = {
      take: async (_model: string, limit: ModelLimit) => {
        given.push(limit);
        return 0;
      },
      settle: async () => {},
      block: async () => {},
    };
    const record = { waited: async () => {}, throttled: async () => {} };
    const limits = { limiter, limits: {}, maxWaitMs: 0, clock: systemClock };
    await underLimits(limits, "constructor", 0, new AbortController().signal, record, async () => REPLY);
    expect(given).toEqual([{ requestsPerMinute: null, tokensPerMinute: null }]);
  });

  it("corrects the reckoned tokens by the answer's usage", async () => {
    const limit = { requestsPerMinute: null, tokensPerMinute: 6_000 };
    const h = harness({ limit });
    // Reckoned 266 (40 characters and an answer); the answer says 50: 216 given back.
    await h.run([() => ({ ...REPLY, usage: { promptTokens: 40, completionTokens: 10, totalTokens: 50 } })]);
    expect(await h.limiter.take("m", limit, 550)).toBe(0);
  });
});
