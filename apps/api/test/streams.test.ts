import { createClient, type OahClient } from "@oah/client";
import type { RunEvent, StreamedEvent } from "@oah/contract";
import { type FakeModel, fakeChunks, startFakeModel } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

async function streamed(client: OahClient, runId: string): Promise<StreamedEvent[]> {
  const seen: StreamedEvent[] = [];
  for await (const event of client.events({ runId })) seen.push(event);
  return seen;
}

describe.each(["sqlite", "redis"] as const)("event streams of oah-api (%s)", (kind) => {
  let model: FakeModel;
  let t: ApiUnderTest;
  let client: OahClient;

  beforeAll(async () => {
    model = await startFakeModel();
    t = await startApi(kind, { OAH_MODEL_BASE_URL: model.url, OAH_MODEL_NAME: "fake-1" });
    client = createClient({ baseUrl: t.api.url });
  });
  afterAll(async () => {
    await t?.dispose();
    await model?.close();
  });

  it("a model step against a local fake streaming model: model.delta events in order before model.completed, whose text is their concatenation", async () => {
    const answer = "The answer is written word by word, as a model writes it.";
    model.reply({ content: answer });
    const { run } = await client.submit(`delta-${kind}`, {
      executor: "script",
      input: { steps: [{ type: "model", prompt: "write" }] },
    });
    const seen = await streamed(client, run.id);

    const types = seen.map((e) => e.type);
    const deltas = seen.filter((e) => e.type === "model.delta");
    const completed = seen.find((e) => e.type === "model.completed") as RunEvent;
    expect(deltas.map((d) => d.data.text)).toEqual(fakeChunks(answer));
    expect(deltas.map((d) => d.data.index)).toEqual(deltas.map((_, i) => i));
    expect(types.lastIndexOf("model.delta")).toBeLessThan(types.indexOf("model.completed"));
    expect(types.indexOf("model.started")).toBeLessThan(types.indexOf("model.delta"));
    expect(completed.data?.text).toBe(deltas.map((d) => d.data.text).join(""));
    expect(types.at(-1)).toBe("run.completed");
    // Never stored: the run's event log has no delta, and the stream's stored events are the log.
    const log = (await client.listEvents(run.id)).items;
    expect(log.some((e) => (e.type as string) === "model.delta")).toBe(false);
    expect(seen.filter((e) => e.type !== "model.delta")).toEqual(log);
  });
});
