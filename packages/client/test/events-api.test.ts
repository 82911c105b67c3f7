// @module-tag system

import { createStoreEnv, type OahProcess, STORE_KINDS, type StoreEnv, startOah } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isOahApiError, type OahClient, type RunEvent, type StreamedEvent } from "../src";
import { collect } from "./collect";

const TOKEN = "client-events-test-0b6f1d2e-8a4c-4e59-b3d7-5c9e1a2f4b68";
const TERMINAL = ["run.completed", "run.failed", "run.cancelled", "run.timed_out"];
const FAST = { reconnect: { initialDelayMs: 50, maxDelayMs: 500 } };

const stored = (events: StreamedEvent[]): RunEvent[] => events.filter((e): e is RunEvent => "id" in e);

/** A session's stored events, from its stream read afresh, until `count` of them came. */
async function sessionEvents(client: OahClient, sessionId: string, count: number): Promise<RunEvent[]> {
  const stop = new AbortController();
  const events: RunEvent[] = [];
  for await (const event of client.events({ sessionId }, { signal: stop.signal })) {
    if ("id" in event) events.push(event);
    if (events.length === count) stop.abort();
  }
  return events;
}

// PostgreSQL too: there, event ids are not in commit order, and the streams' order is.
describe.each(STORE_KINDS)("events() against an oah-api on %s", (kind) => {
  let place: StoreEnv;
  let env: Record<string, string>;
  let api: OahProcess;
  let client: OahClient;

  beforeAll(async () => {
    place = await createStoreEnv(kind);
    env = { ...place.env, OAH_API_TOKEN: TOKEN };
    api = await startOah("oah-api", { env });
    client = createClient({ baseUrl: api.url, token: TOKEN });
  });
  afterAll(async () => {
    await api?.stop("SIGKILL");
    await place?.dispose();
  });

  it("streams a run's events in order, and ends after its terminal event", async () => {
    const { run } = await client.submit("events-a", {
      input: {
        steps: [
          { type: "sleep", ms: 200 },
          { type: "output", value: "done" },
        ],
      },
    });
    const events = await collect(client.events({ runId: run.id }));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("run.queued");
    expect(types).toContain("run.started");
    expect(types.at(-1)).toBe("run.completed");
    expect(events.every((e) => e.runId === run.id)).toBe(true);
    // The stream and the list agree, event for event.
    expect(stored(events)).toEqual((await client.listEvents(run.id)).items);

    // A run that has ended streams what it has, and ends too.
    expect(stored(await collect(client.events({ runId: run.id })))).toEqual(stored(events));
  });

  it("resumes after a given event", async () => {
    const { run } = await client.submit("events-b", { input: { steps: [{ type: "output", value: 1 }] } });
    await client.wait(run.id, { timeoutMs: 20_000, intervalMs: 50 });
    const { items } = await client.listEvents(run.id);
    expect(items.length).toBeGreaterThan(2);
    expect(await collect(client.events({ runId: run.id }, { after: items[1]!.id }))).toEqual(items.slice(2));
    // After the last one: nothing, and the stream ends.
    expect(await collect(client.events({ runId: run.id }, { after: items.at(-1)!.id }))).toEqual([]);
  });

  it("throws the API's refusal of an unknown run", async () => {
    const error = await collect(client.events({ runId: `run_${"0".repeat(26)}` })).catch((e: unknown) => e);
    expect(isOahApiError(error, "run_not_found")).toBe(true);
  });

  it("goes on through a kill -9 and restart of the API, each event once and in order", async () => {
    const sessionId = "events-restart";
    const runs = [];
    for (const ms of [3_000, 300, 300, 300]) {
      const { run } = await client.submit(sessionId, {
        input: {
          steps: [
            { type: "sleep", ms },
            { type: "output", value: ms },
          ],
        },
      });
      runs.push(run.id);
    }
    const port = new URL(api.url).port;
    let restarted: Promise<void> | undefined;
    const events: RunEvent[] = [];
    const ended = new Set<string>();
    const stop = new AbortController();
    for await (const event of client.events({ sessionId }, { ...FAST, signal: stop.signal })) {
      if (!("id" in event)) continue;
      events.push(event);
      if (TERMINAL.includes(event.type)) ended.add(event.runId);
      if (ended.size === runs.length) stop.abort();
      // Killed while the stream waits on the first run's sleep, not between two reads of ours.
      if (event.type === "run.started" && restarted === undefined) {
        restarted = (async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(await api.stop("SIGKILL")).toBe("SIGKILL");
          api = await startOah("oah-api", { env, args: ["--port", port] });
        })();
      }
    }
    await restarted;
    expect(new URL(api.url).port).toBe(port);

    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Every stored event of the session, in the order a fresh stream gives them.
    expect(await sessionEvents(client, sessionId, ids.length)).toEqual(events);
    const listed = await Promise.all(runs.map(async (id) => (await client.listEvents(id)).items));
    expect(events.length).toBe(listed.flat().length);
    for (const [i, runId] of runs.entries()) {
      expect(events.filter((e) => e.runId === runId)).toEqual(listed[i]);
    }
    // The run the kill interrupted ended there; the session's next runs went on after the restart.
    expect(listed[0]!.some((e) => TERMINAL.includes(e.type))).toBe(true);
    expect(listed.slice(1).map((items) => items.at(-1)?.type)).toEqual([
      "run.completed",
      "run.completed",
      "run.completed",
    ]);
  });
});
