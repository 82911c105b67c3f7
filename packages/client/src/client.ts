import type {
  CancelResult,
  JsonValue,
  MessagePosted,
  Run,
  RunCheckpoint,
  RunEvent,
  RunStep,
  StreamedEvent,
  SubmitManyResult,
  SubmitRunRequest,
  SubmitRunResult,
  ToolResultAccepted,
} from "@oah/contract";
import { isTerminal, type RunStatus, TERMINAL_STATUSES } from "@oah/core";
import { adminCalls, type OahAdminCalls } from "./admin";
import { OahWaitTimeout } from "./errors";
import { type EventsOptions, type EventsTarget, streamEvents } from "./events";
import { delay, MAX_TIMER_MS } from "./timers";
import { type ClientOptions, createTransport, seg } from "./transport";

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

/** The runs' calls, and the operators' (`OahAdminCalls`). */
export interface OahClient extends OahAdminCalls {
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
  /** A page of a session's events in the order its stream gives them; the cursor is an event's `id`. */
  listSessionEvents(sessionId: string, page?: PageOptions): Promise<Page<RunEvent>>;
  /**
   * The events of a run (`{runId}`) or of a session (`{sessionId}`) as they happen: the stored
   * ones, each once and in commit order, and the live `model.delta` ones (no `id`) between
   * them. It reconnects by itself, resuming after the last stored event it gave; a run's
   * stream ends after the run's terminal event, a session's only when `signal` aborts. An
   * answer of 4xx rejects the iteration with an `OahApiError`.
   */
  events(target: EventsTarget, options?: EventsOptions): AsyncGenerator<StreamedEvent, void, undefined>;
  steps(runId: string): Promise<RunStep[]>;
  /** The run's checkpoints (docs/spec.md §7): after which step, by which attempt. */
  checkpoints(runId: string): Promise<RunCheckpoint[]>;
  /**
   * Runs the run again from one of its steps (a step id of `steps()`): a new run at the tail of
   * its session that goes on from the checkpoint before that step (`forkedFrom` links them).
   */
  fork(runId: string, options: { fromStep: number }): Promise<SubmitRunResult>;
  /**
   * A message to a running agent run: it takes it into its conversation, as the user's, before
   * its next model call; refused with 409 `run_already_ended` once the run has ended.
   */
  message(runId: string, body: { content: string }): Promise<MessagePosted>;
  cancel(runId: string): Promise<CancelResult>;
  /**
   * Stops the run at its next step boundary, as a later submission's `ifBusy: "interrupt"` does
   * (a queued or parked one at once): it ends `cancelled` with error `interrupted`.
   */
  interrupt(runId: string): Promise<CancelResult>;
  /** The result of the tool the run waits for (`waitingTool`). */
  submitToolResult(runId: string, name: string, output: JsonValue): Promise<ToolResultAccepted>;
  /** Reads the run until its status is one of `until`, and resolves with it. */
  wait(runId: string, options?: WaitOptions): Promise<Run>;
}

/** A client of oah's HTTP API. Every refusal is an `OahApiError`, every failure to reach it an `OahNetworkError`. */
export function createClient(options: ClientOptions): OahClient {
  const { base, fetch, auth, request } = createTransport(options);

  const pageOf = <T>(path: string, page: PageOptions = {}) =>
    request<Page<T>>("GET", path, { query: { after: page.after, limit: page.limit } });

  const get = async (runId: string, signal?: AbortSignal) =>
    (await request<{ run: Run }>("GET", `/api/v1/runs/${seg(runId)}`, { signal })).run;

  return {
    ...adminCalls(request),
    submit: (sessionId, body) =>
      request<SubmitRunResult>("POST", `/api/v1/sessions/${seg(sessionId)}/runs`, { body }),
    submitMany: (runs, options = {}) =>
      request<SubmitManyResult>("POST", "/api/v1/runs/batch", { body: { runs, ...options } }),
    get: (runId) => get(runId),
    listRuns: (sessionId, page) => pageOf<Run>(`/api/v1/sessions/${seg(sessionId)}/runs`, page),
    listEvents: (runId, page) => pageOf<RunEvent>(`/api/v1/runs/${seg(runId)}/events`, page),
    listSessionEvents: (sessionId, page) =>
      pageOf<RunEvent>(`/api/v1/sessions/${seg(sessionId)}/events`, page),
    events: (target, events) =>
      streamEvents(
        {
          base,
          fetch,
          auth,
          runEnded: async (runId, signal) => isTerminal((await get(runId, signal)).status),
        },
        target,
        events,
      ),
    steps: async (runId) =>
      (await request<{ items: RunStep[] }>("GET", `/api/v1/runs/${seg(runId)}/steps`)).items,
    checkpoints: async (runId) =>
      (await request<{ items: RunCheckpoint[] }>("GET", `/api/v1/runs/${seg(runId)}/checkpoints`)).items,
    fork: (runId, { fromStep }) =>
      request<SubmitRunResult>("POST", `/api/v1/runs/${seg(runId)}/fork`, { body: { fromStep } }),
    message: (runId, { content }) =>
      request<MessagePosted>("POST", `/api/v1/runs/${seg(runId)}/messages`, { body: { content } }),
    cancel: (runId) => request<CancelResult>("POST", `/api/v1/runs/${seg(runId)}/cancel`),
    interrupt: (runId) => request<CancelResult>("POST", `/api/v1/runs/${seg(runId)}/interrupt`),
    submitToolResult: (runId, name, output) =>
      request<ToolResultAccepted>("POST", `/api/v1/runs/${seg(runId)}/tool-results`, {
        body: { name, output },
      }),
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
  };
}
