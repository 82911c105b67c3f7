// @module-tag system

import { hostOfWorker } from "@oah/core";
import {
  type FakeModel,
  type FakeModelArrival,
  type SplitDeployment,
  startFakeModel,
  startSplitDeployment,
  waitFor,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf } from "./support";

const MINUTE_MS = 60_000;

/** The most requests that came within any `windowMs`. */
function mostWithin(arrivals: FakeModelArrival[], windowMs: number): number {
  const at = arrivals.map((a) => a.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while ((at[i] as number) - (at[j] as number) >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * The requests beyond what a bucket of 60 refilled at 9 a second (600 a minute: a tenth at
 * once, the other nine tenths over the minute) lets through between any two of them; `slack`
 * for the time between a host's take and its request's arrival.
 */
function beyondBucket(arrivals: FakeModelArrival[], slack: number): number {
  const at = arrivals.map((a) => a.at).sort((a, b) => a - b);
  let worst = 0;
  for (let j = 0; j < at.length; j++) {
    for (let i = 0; i <= j; i++) {
      const allowed = 60 + (9 * ((at[j] as number) - (at[i] as number))) / 1000 + slack;
      worst = Math.max(worst, j - i + 1 - allowed);
    }
  }
  return worst;
}

const modelSteps = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: "model" as const, prompt: `step ${i}` }));

describe("model limits shared by the fleet", () => {
  let d: SplitDeployment | undefined;
  let model: FakeModel | undefined;
  afterEach(async () => {
    await d?.dispose();
    await model?.close();
    d = undefined;
    model = undefined;
  });

  it("three sandboxes against a model allowing 600 requests a minute: never more reach it, never a 429", async () => {
    // A provider's own rule: more than 600 in the last minute is answered 429.
    model = await startFakeModel({
      respond: () => {
        const now = Date.now();
        return (model?.arrivals ?? []).filter((a) => a.status === 200 && now - a.at < MINUTE_MS).length > 600
          ? { status: 429, retryAfter: "1" }
          : { content: "ok", usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };
      },
    });
    const seen = model.arrivals;
    d = await startSplitDeployment({
      sandboxes: 3,
      env: {
        OAH_MODEL_BASE_URL: model.url,
        OAH_MODEL_LIMITS: JSON.stringify({ default: { requestsPerMinute: 600 } }),
      },
      sandboxEnv: { OAH_WORKERS_MIN: "4", OAH_WORKERS_MAX: "4" },
    });
    // 180 calls, as fast as 12 slots on 3 hosts make them: 60 at once, then 9 a second.
    const runs = await Promise.all(
      Array.from(
        { length: 30 },
        async (_, i) => (await clientOf(d!).submit(`limited-${i}`, { input: { steps: modelSteps(6) } })).run,
      ),
    );
    const done = await Promise.all(runs.map((r) => clientOf(d!).wait(r.id, { timeoutMs: 60_000 })));

    expect(done.map((r) => r.status)).toEqual(runs.map(() => "completed"));
    expect(seen.filter((a) => a.status !== 200)).toEqual([]);
    expect(seen).toHaveLength(180);
    expect(mostWithin(seen, MINUTE_MS)).toBeLessThanOrEqual(600);
    // The slack (5 requests, about half a second) is the time between a take and its request's arrival on a busy machine.
    expect(beyondBucket(seen, 5), "requests beyond the bucket between two arrivals").toBeLessThanOrEqual(0);
    // The calls were spread over the fleet, and the runs' waits are on their pages.
    expect(new Set(done.map((r) => hostOfWorker(r.workerId!))).size).toBeGreaterThan(1);
    const { rows } = await d.db.query<{ n: number; ms: number }>(
      "SELECT count(*)::int AS n, coalesce(sum((data->>'ms')::int), 0)::int AS ms FROM run_events WHERE type = 'model.waited'",
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(rows[0]!.ms).toBeGreaterThan(0);
    const metrics = await Promise.all(
      d.sandboxes.map((s) => fetch(`${s.url}/metrics`).then((r) => r.text())),
    );
    expect(metrics.join("\n")).toMatch(/^oah_model_limit_wait_seconds_count\{model="default"\} [1-9]/m);
  }, 90_000);

  it("a 429 with Retry-After: 2 stops every host's calls for 2 s, then the runs go on", async () => {
    model = await startFakeModel({
      respond: () => ({ content: "ok" }),
    });
    model.reply({ status: 429, retryAfter: "2" });
    d = await startSplitDeployment({
      sandboxes: 3,
      env: {
        OAH_MODEL_BASE_URL: model.url,
        OAH_MODEL_LIMITS: JSON.stringify({ default: { requestsPerMinute: 600 } }),
      },
    });
    const first = (await clientOf(d).submit("throttled-first", { input: { steps: modelSteps(1) } })).run;
    // The host that was answered 429 has blocked the model for everyone once it wrote this.
    await waitFor("the 429 recorded", async () => {
      const { rowCount } = await d!.db.query(
        "SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'model.throttled'",
        [first.id],
      );
      return (rowCount ?? 0) > 0 || undefined;
    });
    const others = await Promise.all(
      Array.from(
        { length: 9 },
        async (_, i) =>
          (await clientOf(d!).submit(`throttled-${i}`, { input: { steps: modelSteps(1) } })).run,
      ),
    );
    const done = await Promise.all(
      [first, ...others].map((r) => clientOf(d!).wait(r.id, { timeoutMs: 30_000 })),
    );

    expect(done.map((r) => r.status)).toEqual(done.map(() => "completed"));
    const [refused, ...after] = model.arrivals;
    expect(refused?.status).toBe(429);
    expect(after).toHaveLength(10);
    expect(Math.min(...after.map((a) => a.at)) - refused!.at).toBeGreaterThanOrEqual(2_000);
    expect(new Set(done.map((r) => hostOfWorker(r.workerId!))).size).toBeGreaterThan(1);
    const { rows } = await d.db.query<{ data: { retryAfterMs: number } }>(
      "SELECT data FROM run_events WHERE run_id = $1 AND type = 'model.throttled'",
      [first.id],
    );
    expect(rows.map((r) => r.data.retryAfterMs)).toEqual([2_000]);
  }, 60_000);
});
