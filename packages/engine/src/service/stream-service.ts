import type { RunEvent } from "@oah/contract";
import { OahError } from "@oah/core";
import { type EventScope, type ResumePoint, type RunReads, STREAM_START, type StreamReads } from "@oah/store";
import { type Clock, sleep } from "../clock";
import type { EngineObservers } from "../observers";
import { type EventStreamSettings, eventStream, type StreamItem } from "../streams/event-stream";
import type { StreamHub } from "../streams/stream-hub";

export interface StreamServiceOptions {
  store: StreamReads & Pick<RunReads, "getRun">;
  hub: StreamHub;
  settings: EventStreamSettings;
  observers: Pick<EngineObservers, "eventStreamed">;
  clock: Clock;
}

/** How often the console's "something changed" stream may tell it (it refetches lists on each). */
const CHANGES_EVERY_MS = 250;

/**
 * The event streams of the API (docs/spec.md §12): a run's or a session's events as they are
 * committed, resumable after any event id, and the console's feed of written sessions.
 * Opening checks what it can (the run exists, the id to resume after is the stream's), so
 * that a bad request is refused before a stream starts.
 */
export class StreamService {
  constructor(private readonly options: StreamServiceOptions) {}

  async openRun(
    runId: string,
    after: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StreamItem>> {
    const run = await this.options.store.getRun(runId);
    if (!run) throw new OahError("run_not_found", `no run ${runId}`);
    const scope = { runId };
    const from = await this.resumePoint(scope, after);
    return this.stream({ scope, sessionId: run.sessionId, endsWithRun: true }, from, signal);
  }

  /** A session's stream; a session with no run yet has an empty one, that its first submission starts. */
  async openSession(
    sessionId: string,
    after: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StreamItem>> {
    const scope = { sessionId };
    const from = await this.resumePoint(scope, after);
    return this.stream({ scope, sessionId, endsWithRun: false }, from, signal);
  }

  /** A page of a session's events in the streams' order, after the event `after`. */
  async listSessionEvents(
    sessionId: string,
    page: { after?: number; limit: number },
  ): Promise<{ items: RunEvent[]; nextCursor: number | null }> {
    const scope = { sessionId };
    const from = await this.resumePoint(scope, page.after);
    const read = await this.options.store.streamEvents(scope, from.position, page.limit);
    return { items: read.events, nextCursor: read.full && read.last ? read.last.id : null };
  }

  /** The sessions whose events were written, in batches at most every 250 ms, until `signal`. */
  async *changes(signal: AbortSignal): AsyncGenerator<{ sessionIds: string[] }> {
    let pending = new Set<string>();
    let arrived: (() => void) | null = null;
    const unwatch = this.options.hub.watchWrites((sessionIds) => {
      for (const id of sessionIds) pending.add(id);
      arrived?.();
    });
    const aborted = new Promise<void>((resolve) =>
      signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    try {
      while (!signal.aborted) {
        if (pending.size === 0) {
          await Promise.race([new Promise<void>((resolve) => (arrived = resolve)), aborted]);
          arrived = null;
          continue;
        }
        const sessionIds = [...pending];
        pending = new Set();
        yield { sessionIds };
        await sleep(this.options.clock, CHANGES_EVERY_MS, signal);
      }
    } finally {
      unwatch();
    }
  }

  /** Streams open in this process. */
  get openStreams(): number {
    return this.options.hub.watched;
  }

  private async resumePoint(
    scope: EventScope,
    after: number | undefined,
  ): Promise<{ position: ResumePoint["position"]; type: string | null }> {
    if (!after) return { position: STREAM_START, type: null };
    const point = await this.options.store.eventPosition(scope, after);
    if (!point) {
      const of = "runId" in scope ? `run ${scope.runId}` : `session ${scope.sessionId}`;
      throw new OahError("invalid_cursor", `there is no event ${after} in the events of ${of}`);
    }
    return point;
  }

  private stream(
    target: Parameters<typeof eventStream>[1],
    from: Parameters<typeof eventStream>[2],
    signal: AbortSignal,
  ): AsyncIterable<StreamItem> {
    const { store, hub, observers, clock } = this.options;
    const streamed = observers.eventStreamed
      ? (delayMs: number) => observers.eventStreamed?.({ delayMs })
      : undefined;
    return eventStream({ store, hub, clock, streamed }, target, from, this.options.settings, signal);
  }
}
