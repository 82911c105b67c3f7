import type { RunEvent, StreamedEvent } from "@oah/contract";
import { API_ERROR_STATUS, type ApiErrorCode, TERMINAL_EVENT } from "@oah/core";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errorFromAnswer, OahApiError, OahNetworkError } from "./errors";
import { delay } from "./timers";

/**
 * Whose events to stream. An object rather than a bare id: a session id is any string its
 * caller chose, so `run_01J…` may well name a session, and the two streams differ (a run's
 * ends with the run, a session's stays open).
 */
export type EventsTarget = { runId: string } | { sessionId: string };

export interface ReconnectOptions {
  /** The pause before the first retry, doubled at each failure in a row; 250 ms by default. */
  initialDelayMs?: number;
  /** The longest pause between two attempts; 10 s by default. */
  maxDelayMs?: number;
}

export interface EventsOptions {
  /** Begin after this stored event (an `id` read before); from the first event without it. */
  after?: number;
  /** Ends the iteration, quietly: the loop over it just finishes. */
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
}

/** What a stream needs of its client. */
export interface StreamContext {
  base: string;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  auth: Record<string, string>;
  /** Whether the run has ended (reads it). */
  runEnded(runId: string, signal: AbortSignal): Promise<boolean>;
}

/** Three keep-alives (one every 15 s) missed: the connection is taken for dead, as a half-open TCP one is. */
const IDLE_MS = 45_000;

/**
 * How many of the ids yielded last the duplicate guard remembers. Ids come in commit order,
 * not in numeric order, so no "highest id" can stand for them; a duplicate can only come from a
 * replay near the resume point, which the most recent ids cover, and a session's stream may
 * go on for days.
 */
const REMEMBERED_IDS = 10_000;

const TERMINAL_TYPES: ReadonlySet<string> = new Set(Object.values(TERMINAL_EVENT));

const isStored = (event: StreamedEvent): event is RunEvent => "id" in event;

/**
 * The messages of one connection, until its body ends. Fails with an `OahNetworkError` when
 * the API cannot be reached or the body breaks off, and with an `OahApiError` when it answers
 * with an error or with something that is not an event stream.
 */
async function* messages(
  ctx: StreamContext,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  onBytes: () => void,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  let response: Response;
  try {
    response = await ctx.fetch(url, { method: "GET", headers, signal });
  } catch (cause) {
    throw new OahNetworkError("GET", url, cause);
  }
  const request = { method: "GET", url };
  if (!response.ok) throw errorFromAnswer(response.status, await response.text().catch(() => ""), request);
  if (!/^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "")) {
    throw new OahApiError({
      ...request,
      code: "internal_error",
      status: response.status,
      message: `the API answered ${response.status} with ${response.headers.get("content-type") ?? "no content type"}, not an event stream`,
      body: await response.text().catch(() => ""),
    });
  }
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message) });
  for (;;) {
    const chunk = await reader.read().catch((cause: unknown) => {
      throw new OahNetworkError("GET", url, cause);
    });
    if (chunk.done) return;
    onBytes();
    parser.feed(decoder.decode(chunk.value, { stream: true }));
    yield* parsed.splice(0);
  }
}

/**
 * The event a message carries. An `error` message is the API's error body, the only way it
 * can refuse once the stream has started (it ends the stream after it): thrown with the
 * status its code stands for, so that it is retried or not as the same answer before the
 * stream would be.
 */
function eventOf(message: EventSourceMessage, url: string): StreamedEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.data);
  } catch {
    throw new OahApiError({
      code: "internal_error",
      status: 200,
      message: "the API sent an event whose data is not JSON",
      body: message.data,
      method: "GET",
      url,
    });
  }
  if (message.event === "error") {
    const code = (parsed as { error?: { code?: unknown } }).error?.code;
    const status =
      typeof code === "string" && Object.hasOwn(API_ERROR_STATUS, code)
        ? API_ERROR_STATUS[code as ApiErrorCode]
        : 500;
    throw errorFromAnswer(status, message.data, { method: "GET", url });
  }
  return parsed as StreamedEvent;
}

/**
 * The events of a run or a session as the API streams them, across reconnections: each stored
 * event once, in commit order, and the live deltas that came while connected (a delta missed
 * while disconnected is gone). A network failure, an answer of 5xx or an end the stream did not
 * mean is retried with backoff, from the last stored event yielded, until `signal` aborts, and
 * so is a 429; any other answer of 4xx is thrown.
 */
export async function* streamEvents(
  ctx: StreamContext,
  target: EventsTarget,
  options: EventsOptions = {},
): AsyncGenerator<StreamedEvent, void, undefined> {
  const { signal } = options;
  const initialDelayMs = options.reconnect?.initialDelayMs ?? 250;
  const maxDelayMs = options.reconnect?.maxDelayMs ?? 10_000;
  const runId = "runId" in target ? target.runId : undefined;
  const path =
    "runId" in target
      ? `/api/v1/runs/${encodeURIComponent(target.runId)}/events`
      : `/api/v1/sessions/${encodeURIComponent(target.sessionId)}/events`;

  const yielded = new Set<number>();
  /** The `id:` of the last stored event yielded: where a new connection resumes. */
  let lastEventId: string | undefined;
  let lastType: string | undefined;
  let failures = 0;

  while (!signal?.aborted) {
    // The caller's `after` starts the first connection; a resumption says where with the header alone.
    const url = `${ctx.base}${path}${lastEventId === undefined && options.after !== undefined ? `?after=${options.after}` : ""}`;
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      ...ctx.auth,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    };
    const connection = new AbortController();
    const onAbort = () => connection.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const stillAlive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error(`nothing came for ${IDLE_MS} ms`)), IDLE_MS);
    };
    let ended = false;
    let deliveredStored = false;
    try {
      stillAlive();
      for await (const message of messages(ctx, url, headers, connection.signal, stillAlive)) {
        failures = 0;
        const event = eventOf(message, url);
        if (isStored(event)) {
          if (yielded.has(event.id)) continue;
          yielded.add(event.id);
          if (yielded.size > REMEMBERED_IDS) yielded.delete(yielded.values().next().value as number);
          lastEventId = message.id ?? String(event.id);
          lastType = event.type;
          deliveredStored = true;
        }
        // The caller may hold an event as long as it likes: that is no silence of the API's.
        clearTimeout(idle);
        yield event;
        stillAlive();
      }
      // A run's stream ends after its terminal event, one an earlier connection gave included.
      // Resumed by `after` past the end, it ends with nothing on it: only the run tells why.
      ended =
        runId !== undefined &&
        (TERMINAL_TYPES.has(lastType ?? "") ||
          (!deliveredStored && (await ctx.runEnded(runId, connection.signal))));
    } catch (error) {
      if (signal?.aborted) return;
      // A 429 (too many streams held) refuses for now, not for good.
      if (error instanceof OahApiError && error.status < 500 && error.status !== 429) throw error;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener("abort", onAbort);
      connection.abort();
    }
    if (ended) return;
    const backoff = Math.min(maxDelayMs, initialDelayMs * 2 ** failures++);
    try {
      // Jittered, so that the clients of an API that restarts do not all come back at once.
      await delay(backoff * (0.5 + Math.random() / 2), signal ?? new AbortController().signal);
    } catch {
      return;
    }
  }
}
