// @module-tag system

import { isOahApiError } from "@oah/client";
import { type FakeModel, startFakeModel } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };

/**
 * Model usage by workspace (docs/spec.md §4) on the embedded default: every model call's tokens
 * counted to its run's workspace for its hour, read back by the API and the client, and counted
 * on /metrics with a label for the configured workspaces only.
 */
describe("model usage by workspace", () => {
  let model: FakeModel;
  let t: ApiUnderTest;
  beforeAll(async () => {
    model = await startFakeModel();
    t = await startApi("sqlite", {
      OAH_MODEL_BASE_URL: model.url,
      OAH_MODEL_NAME: "fake-1",
      OAH_WORKSPACE_WEIGHTS: JSON.stringify({ "team-a": 2 }),
    });
  });
  afterAll(async () => {
    await t?.dispose();
    await model?.close();
  });

  const modelRun = async (workspaceId: string, calls: number) => {
    for (let i = 0; i < calls; i++) model.reply({ content: `answer ${i}`, usage });
    const steps = Array.from({ length: calls }, (_, i) => ({ type: "model" as const, prompt: `ask ${i}` }));
    const { run } = await t.oah.submit(`usage-${workspaceId}`, { workspaceId, input: { steps } });
    expect((await t.oah.wait(run.id)).status).toBe("completed");
  };

  it("counts each call's tokens to its run's workspace, by hour; /metrics labels only the configured ones", async () => {
    const before = new Date(Date.now() - 1_000).toISOString();
    await modelRun("team-a", 2);
    await modelRun("team-b", 1);
    const { items } = await t.oah.usage({ from: before });
    expect(items.map(({ hour: _, ...figures }) => figures)).toEqual([
      { workspaceId: "team-a", calls: 2, promptTokens: 40, completionTokens: 10 },
      { workspaceId: "team-b", calls: 1, promptTokens: 20, completionTokens: 5 },
    ]);
    expect(Date.parse(items[0]!.hour) % 3_600_000).toBe(0);
    expect((await t.oah.usage({ workspaceId: "team-b" })).items).toMatchObject([{ calls: 1 }]);

    const metrics = await (await fetch(`${t.api.url}/metrics`)).text();
    expect(metrics).toMatch(/^oah_model_calls_total\{workspace="team-a"\} 2$/m);
    expect(metrics).toMatch(/^oah_model_calls_total\{workspace="other"\} 1$/m);
    expect(metrics).toMatch(/^oah_model_tokens_total\{workspace="team-a",kind="prompt"\} 40$/m);
    expect(metrics).not.toContain('workspace="team-b"');
  });

  it("refuses a range that ends before it starts, or spans more than 31 days", async () => {
    for (const query of [
      { from: "2026-12-02T00:00:00Z", to: "2026-12-01T00:00:00Z" },
      { from: "2026-10-01T00:00:00Z", to: "2026-12-01T00:00:00Z" },
      { from: "yesterday" },
    ]) {
      const refused = await t.oah.usage(query).catch((error: unknown) => error);
      expect(isOahApiError(refused, "invalid_request")).toBe(true);
    }
  });
});
