// @module-tag unit

import { describe, expect, it } from "vitest";
import { createClient, OahApiError } from "../src";
import { collect } from "./collect";
import { fakeFetch, json, RUN_ID, runWith } from "./fake-fetch";

const BASE = "http://api.test";
const FAST = { reconnect: { initialDelayMs: 1, maxDelayMs: 5 } };

const stored = (id: number, type: string) => ({
  id,
  runId: RUN_ID,
  type,
  at: "2030-01-01T00:00:00.000Z",
  data: null,
});
const delta = (text: string) => ({
  runId: RUN_ID,
  type: "model.delta",
  at: "2030-01-01T00:00:00.000Z",
  data: { stepId: 1, index: 0, text },
});

/** An SSE message as the API writes it: a delta carries the id of the stored event before it. */
function message(event: Record<string, unknown>, lastId?: number): string {
  const id = "id" in event ? event.id : lastId;
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * An event-stream answer of `chunks`; with `breakOff`, the body then fails as a dropped
 * connection does, rather than ending.
 */
function sse(chunks: string[], breakOff = false): Response {
  const bytes = new TextEncoder();
  let next = 0;
  // Chunk by chunk, as reads ask: an error would discard whatever is still queued.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk !== undefined) controller.enqueue(bytes.encode(chunk));
      else if (breakOff) controller.error(new TypeError("terminated"));
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

describe("events", () => {
  it("streams a run's events, live deltas among them, and ends after its terminal event", async () => {
    const { fetch, seen } = fakeFetch(() =>
      sse([
        ": keep-alive\n\n",
        message(stored(7, "run.started")),
        // One message split across two reads.
        message(delta("hel"), 7).slice(0, 20),
        message(delta("hel"), 7).slice(20),
        message(stored(8, "run.completed")),
      ]),
    );
    const client = createClient({ baseUrl: BASE, token: "t", fetch });
    const events = await collect(client.events({ runId: RUN_ID }, { after: 6 }));
    expect(events).toEqual([stored(7, "run.started"), delta("hel"), stored(8, "run.completed")]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      url: `${BASE}/api/v1/runs/${RUN_ID}/events?after=6`,
      headers: { accept: "text/event-stream", authorization: "Bearer t" },
    });
    expect(seen[0]!.headers["last-event-id"]).toBeUndefined();
  });

  it("resumes a broken stream from the last stored event it gave, each event once and in order", async () => {
    // Commit order, not numeric order: the cursor is the last id, not the highest.
    const answers = [
      () => sse([message(stored(5, "run.started")), message(stored(3, "tool.started"))], true),
      () => json(503, { error: { code: "internal_error", message: "restarting" } }),
      () => {
        throw new TypeError("fetch failed");
      },
      // The API replays the event resumed from: the guard drops it.
      () =>
        sse([message(stored(3, "tool.started")), message(delta("x"), 3), message(stored(9, "run.failed"))]),
    ];
    const { fetch, seen } = fakeFetch(() => answers[Math.min(seen.length - 1, answers.length - 1)]!());
    const events = await collect(createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID }, FAST));
    expect(events).toEqual([
      stored(5, "run.started"),
      stored(3, "tool.started"),
      delta("x"),
      stored(9, "run.failed"),
    ]);
    expect(seen.map((r) => [r.url, r.headers["last-event-id"]])).toEqual([
      [`${BASE}/api/v1/runs/${RUN_ID}/events`, undefined],
      [`${BASE}/api/v1/runs/${RUN_ID}/events`, "3"],
      [`${BASE}/api/v1/runs/${RUN_ID}/events`, "3"],
      [`${BASE}/api/v1/runs/${RUN_ID}/events`, "3"],
    ]);
  });

  it("reconnects a session's stream that ends, and stops when its signal aborts", async () => {
    const stop = new AbortController();
    const { fetch, seen } = fakeFetch(() => {
      if (seen.length === 3) {
        stop.abort();
        throw new DOMException("aborted", "AbortError");
      }
      return sse([message(stored(seen.length, "run.queued"))]);
    });
    const events = await collect(
      createClient({ baseUrl: BASE, fetch }).events(
        { sessionId: "run_lookalike" },
        { ...FAST, signal: stop.signal },
      ),
    );
    expect(events.map((e) => (e as { id: number }).id)).toEqual([1, 2]);
    expect(seen[0]!.url).toBe(`${BASE}/api/v1/sessions/run_lookalike/events`);
    expect(seen[2]!.headers["last-event-id"]).toBe("2");
  });

  it("throws the API's refusal without retrying", async () => {
    const { fetch, seen } = fakeFetch(() =>
      json(404, { error: { code: "run_not_found", message: "no run" } }),
    );
    const error = await collect(createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID }, FAST)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OahApiError);
    expect(error).toMatchObject({ code: "run_not_found", status: 404 });
    expect(seen).toHaveLength(1);
  });

  it("retries a stream refused for now (429 too_many_streams), as it does a 5xx", async () => {
    const answers = [
      () => json(429, { error: { code: "too_many_streams", message: "100 event streams are held" } }),
      () => sse([message(stored(1, "run.started")), message(stored(2, "run.completed"))]),
    ];
    const { fetch, seen } = fakeFetch(() => answers[seen.length - 1]!());
    const events = await collect(createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID }, FAST));
    expect(events).toEqual([stored(1, "run.started"), stored(2, "run.completed")]);
    expect(seen).toHaveLength(2);
  });

  it("takes an error the stream ends with as the answer it stands for: a 5xx is retried, a 4xx thrown", async () => {
    const error = (code: string) =>
      `event: error\ndata: ${JSON.stringify({ error: { code, message: code } })}\n\n`;
    const answers = [
      () => sse([message(stored(1, "run.started")), error("internal_error")]),
      () => sse([message(stored(2, "tool.started")), error("run_not_found")]),
    ];
    const { fetch, seen } = fakeFetch(() => answers[seen.length - 1]!());
    const events: unknown[] = [];
    const thrown = await (async () => {
      for await (const event of createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID }, FAST)) {
        events.push(event);
      }
    })().catch((e: unknown) => e);
    expect(events).toEqual([stored(1, "run.started"), stored(2, "tool.started")]);
    expect(thrown).toMatchObject({ name: "OahApiError", code: "run_not_found", status: 404 });
    expect(seen).toHaveLength(2);
  });

  it("refuses an answer that is not an event stream", async () => {
    const { fetch } = fakeFetch(() => json(200, { items: [] }));
    await expect(
      collect(createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID })),
    ).rejects.toMatchObject({
      code: "internal_error",
      message: expect.stringMatching(/not an event stream/),
    });
  });

  it("ends a run's stream that resumed past its end, once the run reads as ended", async () => {
    const { fetch, seen } = fakeFetch((r) =>
      r.url.endsWith("/events?after=8")
        ? sse([": keep-alive\n\n"])
        : json(200, { run: runWith({ status: "completed" }) }),
    );
    expect(
      await collect(createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID }, { after: 8 })),
    ).toEqual([]);
    expect(seen.map((r) => r.url)).toEqual([
      `${BASE}/api/v1/runs/${RUN_ID}/events?after=8`,
      `${BASE}/api/v1/runs/${RUN_ID}`,
    ]);
  });

  it("closes its connection when the loop over it breaks off", async () => {
    let signal: AbortSignal | undefined;
    const { fetch } = fakeFetch((_r, init) => {
      signal = init.signal ?? undefined;
      return sse([message(stored(1, "run.queued")), message(stored(2, "run.started"))]);
    });
    for await (const event of createClient({ baseUrl: BASE, fetch }).events({ runId: RUN_ID })) {
      expect(event.type).toBe("run.queued");
      break;
    }
    expect(signal?.aborted).toBe(true);
  });
});
