// @module-tag system

import { type FakeModel, startFakeModel } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

const modelSteps = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: "model" as const, prompt: `step ${i}` }));

// The embedded mode: the limits in the one process's memory.
describe("model limits, embedded", () => {
  let model: FakeModel;
  let t: ApiUnderTest;

  beforeAll(async () => {
    model = await startFakeModel({ respond: () => ({ content: "ok" }) });
    t = await startApi("sqlite", {
      OAH_MODEL_BASE_URL: model.url,
      OAH_MODEL_NAME: "fake-1",
      // A bucket of 6, refilled one every 1.11 s.
      OAH_MODEL_LIMITS: JSON.stringify({ "fake-1": { requestsPerMinute: 60 } }),
      OAH_MODEL_LIMIT_MAX_WAIT_MS: "3000",
    });
  });
  afterAll(async () => {
    await t?.dispose();
    await model?.close();
  });

  it("a run's calls beyond the bucket wait for it, the run running, each wait in its events", async () => {
    const run = (await t.oah.submit("limited", { input: { steps: modelSteps(8) } })).run;
    const done = await t.oah.wait(run.id, { timeoutMs: 20_000 });

    expect(done.status).toBe("completed");
    const at = model.arrivals.map((a) => a.at);
    expect(at).toHaveLength(8);
    expect((at[6] as number) - (at[0] as number)).toBeGreaterThanOrEqual(1_000);
    expect((at[7] as number) - (at[0] as number)).toBeGreaterThanOrEqual(2_100);
    const waits = (await t.oah.listEvents(run.id)).items.filter((e) => e.type === "model.waited");
    expect(waits).toHaveLength(2);
    expect(waits.map((e) => e.data)).toEqual([
      expect.objectContaining({ model: "fake-1", ms: expect.any(Number) }),
      expect.objectContaining({ model: "fake-1", ms: expect.any(Number) }),
    ]);
  });

  it("fails the run with model_rate_limited at once when a 429's Retry-After is beyond the bound", async () => {
    const before = model.arrivals.length;
    model.reply({ status: 429, retryAfter: "10" });
    const run = (await t.oah.submit("refused", { input: { steps: modelSteps(2) } })).run;
    const done = await t.oah.wait(run.id, { timeoutMs: 10_000 });

    expect(done).toMatchObject({ status: "failed", errorCode: "model_rate_limited" });
    expect(model.arrivals.slice(before).map((a) => a.status)).toEqual([429]);
    const types = (await t.oah.listEvents(run.id)).items.map((e) => e.type);
    expect(types).toContain("model.throttled");
    expect(types).toContain("model.failed");
    const metrics = await (
      await fetch(`${t.api.url}/metrics`, { headers: { authorization: `Bearer ${t.env.OAH_API_TOKEN}` } })
    ).text();
    expect(metrics).toMatch(/^oah_model_throttled_total\{model="fake-1"\} 1$/m);
  });
});
