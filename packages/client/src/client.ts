import type {
  CancelResult,
  HostOrderAccepted,
  JsonValue,
  PoolOverview,
  RequeueAccepted,
  Run,
  RunEvent,
  RunStep,
  StreamedEvent,
  SubmitManyResult,
  SubmitRunRequest,
  SubmitRunResult,
  ToolResultAccepted,
} from "@oah/contract";
import { isTerminal, type RunStatus, TERMINAL_STATUSES } from "@oah/core";
import { errorFromAnswer, OahApiError, OahNetworkError, OahWaitTimeout, parseBody } from "./errors";
import { type EventsOptions, type EventsTarget, streamEvents } from "./events";
import { delay, MAX_TIMER_MS } from "./timers";

/** The `fetch` the client calls: the global one, or one of the caller's (a test's fake, a wrapped one). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /**
   * Where the API is, e.g. `http://127.0.0.1:8787`; a path prefix is kept (`https://host/oah`),
   * and in a browser a relative address is taken from the page's (`/oah`).
   */
  baseUrl: string | URL;
  /** The API's `OAH_API_TOKEN`, sent as `Authorization: Bearer <token>`. */
  token?: string;
  fetch?: FetchLike;
}

export interface PageOptions {
  /** Continue after this cursor: a previous page's `nextCursor`. */
  after?: number;
  /** At most this many items (the API's bounds and default apply). */
  limit?: number;
}

/** A page of a list; `nextCursor` is null on the last page, else the `after` of the next one. */
export interface Page<T> {
  items: T[];
  nextCursor: number | null;
}

export interface RequeueOptions {
  /** Who asks (recorded as the run's `lastManualRequeueBy`); the API says "api" without it. */
  requestedBy?: string;
  /** Also start again a run whose cancel was requested. */
  includeCancelled?: boolean;
}

export interface WaitOptions {
  /** The statuses to wait for; by default the terminal ones. */
  until?: readonly RunStatus[];
  /** Give up after this long with an `OahWaitTimeout`; by default there is no limit. */
  timeoutMs?: number;
  /** How long between two reads of the run; 250 ms by default. */
  intervalMs?: number;
  /** Stops waiting: `wait` rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface OahClient {
  /** Submits a run to a session: 202 `{run, created: true}`, or the earlier run of the same idempotency key. */
  submit(sessionId: string, request: SubmitRunRequest): Promise<SubmitRunResult>;
  /**
   * Submits up to 1,000 runs across sessions in one call, each with its `sessionId`: numbered in
   * each session in the order given; the whole batch or nothing, unless `partial` (then each item
   * is its run or its error).
   */
  submitMany(
    runs: readonly (SubmitRunRequest & { sessionId: string })[],
    options?: { partial?: boolean },
  ): Promise<SubmitManyResult>;
  get(runId: string): Promise<Run>;
  /** A session's runs in submission order; the cursor is a run's `seq`. */
  listRuns(sessionId: string, page?: PageOptions): Promise<Page<Run>>;
  /** A page of a run's events in order; the cursor is an event's `id`. */
  listEvents(runId: string, page?: PageOptions): Promise<Page<RunEvent>>;
  /**
   * The events of a run (`{runId}`) or of a session (`{sessionId}`) as they happen: the stored
   * ones, each once and in commit order, and the live `model.delta` ones (no `id`) between
   * them. It reconnects by itself, resuming after the last stored event it gave; a run's
   * stream ends after the run's terminal event, a session's only when `signal` aborts. An
   * answer of 4xx rejects the iteration with an `OahApiError`.
   */
  events(target: EventsTarget, options?: EventsOptions): AsyncGenerator<StreamedEvent, void, undefined>;
  steps(runId: string): Promise<RunStep[]>;
  cancel(runId: string): Promise<CancelResult>;
  /** The result of the tool the run waits for (`waitingTool`). */
  submitToolResult(runId: string, name: string, output: JsonValue): Promise<ToolResultAccepted>;
  /** An operator's requeue of a failed, timed-out (or, asked so, cancelled) run. */
  requeue(runId: string, options?: RequeueOptions): Promise<RequeueAccepted>;
  /** Reads the run until its status is one of `until`, and resolves with it. */
  wait(runId: string, options?: WaitOptions): Promise<Run>;
  cordon(hostId: string): Promise<HostOrderAccepted>;
  uncordon(hostId: string): Promise<HostOrderAccepted>;
  drain(hostId: string): Promise<HostOrderAccepted>;
  pool(): Promise<PoolOverview>;
}

interface RequestParts {
  query?: Record<string, number | undefined>;
  /** A JSON body; every POST sends one (`{}` when it has nothing to say). */
  body?: unknown;
  signal?: AbortSignal;
}

const seg = encodeURIComponent;

/** A client of oah's HTTP API. Every refusal is an `OahApiError`, every failure to reach it an `OahNetworkError`. */
export function createClient(options: ClientOptions): OahClient {
  // Validates the address now; the base keeps its path, without a trailing slash. A relative
  // one (`/oah`) is resolved against the page's address in a browser.
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  const base = new URL(options.baseUrl, page).href.replace(/\/+$/, "");
  // The global fetch is looked up at each call, and called as a plain function (a browser's
  // fetch refuses another `this`).
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};

  async function request<T>(method: "GET" | "POST", path: string, parts: RequestParts = {}): Promise<T> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(parts.query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const query = search.toString();
    const url = `${base}${path}${query ? `?${query}` : ""}`;
    const body = method === "POST" ? JSON.stringify(parts.body ?? {}) : undefined;
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(url, {
        method,
        headers: {
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...auth,
        },
        body,
        signal: parts.signal,
      });
      status = response.status;
      text = await response.text();
    } catch (cause) {
      if (parts.signal?.aborted) throw parts.signal.reason;
      throw new OahNetworkError(method, url, cause);
    }
    if (status < 200 || status > 299) throw errorFromAnswer(status, text, { method, url });
    const parsed = parseBody(text);
    if (!parsed.json) {
      throw new OahApiError({
        code: "internal_error",
        status,
        message: `the API answered ${status} with a body that is not JSON`,
        body: text,
        method,
        url,
      });
    }
    return parsed.value as T;
  }

  const get = async (runId: string, signal?: AbortSignal) =>
    (await request<{ run: Run }>("GET", `/api/v1/runs/${seg(runId)}`, { signal })).run;

  const order = (hostId: string, what: "cordon" | "uncordon" | "drain") =>
    request<HostOrderAccepted>("POST", `/api/v1/hosts/${seg(hostId)}/${what}`);

  return {
    submit: (sessionId, body) =>
      request<SubmitRunResult>("POST", `/api/v1/sessions/${seg(sessionId)}/runs`, { body }),
    submitMany: (runs, options = {}) =>
      request<SubmitManyResult>("POST", "/api/v1/runs/batch", { body: { runs, ...options } }),
    get: (runId) => get(runId),
    listRuns: (sessionId, page = {}) =>
      request<Page<Run>>("GET", `/api/v1/sessions/${seg(sessionId)}/runs`, {
        query: { after: page.after, limit: page.limit },
      }),
    listEvents: (runId, page = {}) =>
      request<Page<RunEvent>>("GET", `/api/v1/runs/${seg(runId)}/events`, {
        query: { after: page.after, limit: page.limit },
      }),
    events: (target, events) =>
      streamEvents(
        {
          base,
          fetch: fetchImpl,
          auth,
          runEnded: async (runId, signal) => isTerminal((await get(runId, signal)).status),
        },
        target,
        events,
      ),
    steps: async (runId) =>
      (await request<{ items: RunStep[] }>("GET", `/api/v1/runs/${seg(runId)}/steps`)).items,
    cancel: (runId) => request<CancelResult>("POST", `/api/v1/runs/${seg(runId)}/cancel`),
    submitToolResult: (runId, name, output) =>
      request<ToolResultAccepted>("POST", `/api/v1/runs/${seg(runId)}/tool-results`, {
        body: { name, output },
      }),
    requeue: (runId, requeue = {}) =>
      request<RequeueAccepted>("POST", `/api/v1/runs/${seg(runId)}/requeue`, { body: requeue }),
    async wait(runId, { until = TERMINAL_STATUSES, timeoutMs, intervalMs = 250, signal } = {}) {
      signal?.throwIfAborted();
      let last: Run | undefined;
      // One signal ends both the reads and the pauses between them: the caller's, or the deadline.
      const stop = new AbortController();
      const onAbort = () => stop.abort(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      const deadline =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => stop.abort(new OahWaitTimeout(runId, timeoutMs, until, last)),
              Math.min(timeoutMs, MAX_TIMER_MS),
            );
      try {
        for (;;) {
          last = await get(runId, stop.signal);
          if (until.includes(last.status)) return last;
          await delay(intervalMs, stop.signal);
        }
      } finally {
        clearTimeout(deadline);
        signal?.removeEventListener("abort", onAbort);
      }
    },
    cordon: (hostId) => order(hostId, "cordon"),
    uncordon: (hostId) => order(hostId, "uncordon"),
    drain: (hostId) => order(hostId, "drain"),
    pool: () => request<PoolOverview>("GET", "/api/v1/pool"),
  };
}
