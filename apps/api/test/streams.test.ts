// @module-tag system

import { createClient, type OahClient } from "@oah/client";
import type { RunEvent, StreamedEvent } from "@oah/contract";
import { type FakeModel, fakeChunks, startFakeModel } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

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
    // The model run waits behind a gate until its stream is open: a delta sent before a client
    // connects is never sent again, so a stream opened after the start could miss the first ones.
    const gate = await client.submit(`delta-${kind}`, {
      input: { steps: [{ type: "wait_tool", name: "go" }] },
    });
    const { run } = await client.submit(`delta-${kind}`, {
      executor: "script",
      input: { steps: [{ type: "model", prompt: "write" }] },
    });
    const seen: StreamedEvent[] = [];
    for await (const event of client.events({ runId: run.id })) {
      seen.push(event);
      if (seen.length === 1) {
        await client.wait(gate.run.id, { until: ["waiting_tool"] });
        await client.submitToolResult(gate.run.id, "go", true);
      }
    }

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

/** A raw SSE request: its status, and what arrived within `forMs` (or until the server closed it). */
async function rawStream(
  url: string,
  headers: Record<string, string>,
  forMs: number,
): Promise<{ status: number; contentType: string | null; text: string }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), forMs);
  const response = await fetch(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  let text = "";
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  return { status: response.status, contentType: response.headers.get("content-type"), text };
}

/** The messages of an SSE text: each one's fields, comments apart. */
function messages(text: string): Record<string, string>[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() && !block.startsWith(":"))
    .map((block) =>
      Object.fromEntries(
        block
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      ),
    );
}

describe("the HTTP event streams as a client without the client package sees them", () => {
  let t: ApiUnderTest;
  const token = "stream-token-0123456789abcdefghijklmnop";
  beforeAll(async () => {
    t = await startApi("sqlite", { OAH_API_TOKEN: token, OAH_STREAM_KEEPALIVE_MS: "200" });
  });
  afterAll(() => t?.dispose());
  const auth = { authorization: `Bearer ${token}` };

  it("answers id, event and data per event, keeps an idle stream alive, resumes after Last-Event-ID, and ends a run's stream after its end", async () => {
    const client = createClient({ baseUrl: t.api.url, token });
    const { run } = await client.submit("raw", { input: { steps: [{ type: "output", value: 1 }] } });
    await client.wait(run.id);
    const whole = await rawStream(`${t.api.url}/api/v1/runs/${run.id}/events`, auth, 5_000);
    expect(whole.status).toBe(200);
    expect(whole.contentType).toBe("text/event-stream; charset=utf-8");
    const sent = messages(whole.text);
    const log = (await client.listEvents(run.id)).items;
    expect(sent).toEqual(log.map((e) => ({ id: String(e.id), event: e.type, data: JSON.stringify(e) })));

    const resumed = await rawStream(
      `${t.api.url}/api/v1/runs/${run.id}/events`,
      { ...auth, "last-event-id": String(log[0]!.id) },
      5_000,
    );
    expect(messages(resumed.text).map((m) => m.id)).toEqual(log.slice(1).map((e) => String(e.id)));

    // A session's stream stays open: with nothing new, only keep-alive comments come.
    const idle = await rawStream(
      `${t.api.url}/api/v1/sessions/raw/events?after=${log.at(-1)!.id}`,
      auth,
      900,
    );
    expect(messages(idle.text)).toEqual([]);
    expect(idle.text.match(/^: keep-alive$/gm)?.length).toBeGreaterThanOrEqual(2);
  });

  it("the tRPC subscriptions give the same events, tracked by their ids, and resume from lastEventId", async () => {
    const client = createClient({ baseUrl: t.api.url, token });
    const { run } = await client.submit("trpc-stream", { input: { steps: [{ type: "output", value: 2 }] } });
    await client.wait(run.id);
    const log = (await client.listEvents(run.id)).items;
    const trpc = (procedure: string, input: unknown) =>
      `${t.api.url}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
    const tracked = (text: string) =>
      messages(text)
        .filter((m) => m.id !== undefined)
        .map((m) => [m.id, JSON.parse(m.data!).type]);

    const ofRun = await rawStream(trpc("runs.onEvents", { runId: run.id }), auth, 5_000);
    expect(tracked(ofRun.text)).toEqual(log.map((e) => [String(e.id), e.type]));
    const ofSession = await rawStream(
      trpc("sessions.onEvents", { sessionId: "trpc-stream", lastEventId: String(log[0]!.id) }),
      auth,
      800,
    );
    expect(tracked(ofSession.text)).toEqual(log.slice(1).map((e) => [String(e.id), e.type]));
  });

  it("refuses before streaming: no token, an unknown run, an id not of the stream", async () => {
    const client = createClient({ baseUrl: t.api.url, token });
    const { run } = await client.submit("raw-refusals", { input: { steps: [] } });
    const url = `${t.api.url}/api/v1/runs/${run.id}/events`;
    const refusals = await Promise.all([
      rawStream(url, {}, 2_000),
      rawStream(`${t.api.url}/api/v1/runs/run_01JZZZZZZZZZZZZZZZZZZZZZZZ/events`, auth, 2_000),
      rawStream(`${url}?after=999999`, auth, 2_000),
      rawStream(`${url}?after=abc`, auth, 2_000),
    ]);
    expect(refusals.map((r) => [r.status, JSON.parse(r.text).error.code])).toEqual([
      [401, "unauthorized"],
      [404, "run_not_found"],
      [400, "invalid_cursor"],
      [400, "invalid_request"],
    ]);
  });
});
