import type { LiveRunEvent, StreamedEvent } from "@oah/contract";
import { TERMINAL_EVENT } from "@oah/core";
import type { EventPosition, EventScope, StreamReads } from "@oah/store";
import type { Clock } from "../clock";
import type { StreamHub } from "./stream-hub";

/** One message of a stream: the event, and the id a client resumes after (a live event's is the last stored one's). */
export interface StreamItem {
  id: number;
  event: StreamedEvent;
}

export interface EventStreamSettings {
  /** The store is read this often even without a note: a lost note delays an event, never loses it. */
  pollMs: number;
  /** After a read found committed events not yet in order, the next comes this soon (doubling up to settleMaxMs). */
  settleMs: number;
  settleMaxMs: number;
  pageSize: number;
}

export const DEFAULT_STREAM_SETTINGS: EventStreamSettings = {
  pollMs: 2_000,
  settleMs: 5,
  settleMaxMs: 25,
  pageSize: 500,
};

export interface StreamTarget {
  scope: EventScope;
  /** The session whose notes wake the stream (a run's own session for a run's stream). */
  sessionId: string;
  /** A run's stream ends after the run's terminal event, once nothing follows it. */
  endsWithRun: boolean;
}

const TERMINAL_TYPES = new Set<string>(Object.values(TERMINAL_EVENT));

/**
 * The events of a target from a position: each stored event once, in commit order, read
 * from the store whenever a note says the session was written (or every `pollMs`), with
 * the live events that arrive meanwhile. Ends on `signal`, or after a run's end.
 */
export async function* eventStream(
  deps: {
    store: Pick<StreamReads, "streamEvents">;
    hub: StreamHub;
    clock: Clock;
    /** Told how long each stored event took from its writing to its stream (ms). */
    streamed?: (delayMs: number) => void;
  },
  target: StreamTarget,
  from: { position: EventPosition; type: string | null },
  settings: EventStreamSettings,
  signal: AbortSignal,
): AsyncGenerator<StreamItem> {
  let position = from.position;
  let lastType = from.type;
  let dirty = true;
  const live: LiveRunEvent[] = [];
  let wake: (() => void) | null = null;
  const poke = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const runId = "runId" in target.scope ? target.scope.runId : null;
  const unwatch = deps.hub.watchSession(target.sessionId, {
    written: () => {
      dirty = true;
      poke();
    },
    live: ({ runId: eventRunId, type, at, data }) => {
      if (runId !== null && eventRunId !== runId) return;
      live.push({ runId: eventRunId, type, at, data });
      poke();
    },
  });
  signal.addEventListener("abort", poke);
  let settleDelay = settings.settleMs;
  let nextReadIn = settings.pollMs;
  /** Stored events may still be held back: a live event waits until they are sent. */
  let unsettled = false;
  let unwatchWrites: (() => void) | null = null;
  try {
    while (!signal.aborted) {
      if (dirty) {
        dirty = false;
        let page: Awaited<ReturnType<StreamReads["streamEvents"]>>;
        let delivered = false;
        do {
          page = await deps.store.streamEvents(target.scope, position, settings.pageSize);
          for (const event of page.events) {
            deps.streamed?.(deps.clock.now() - Date.parse(event.at));
            yield { id: event.id, event };
            lastType = event.type;
            delivered = true;
          }
          if (page.last) position = page.last;
        } while (page.full && !signal.aborted);
        unsettled = page.unsettled;
        if (page.unsettled) {
          // Transactions older than the events found are still open. They end within
          // milliseconds: the next commit anywhere may be theirs, so any note wakes the
          // stream, and else the read comes again soon, a little later each time it finds
          // nothing new, never later than `settleMaxMs`.
          if (delivered) settleDelay = settings.settleMs;
          nextReadIn = settleDelay;
          settleDelay = Math.min(settleDelay * 2, settings.settleMaxMs);
          unwatchWrites ??= deps.hub.watchAnyCommit(() => {
            dirty = true;
            poke();
          });
        } else {
          unwatchWrites?.();
          unwatchWrites = null;
          settleDelay = settings.settleMs;
          nextReadIn = settings.pollMs;
          if (target.endsWithRun && lastType !== null && TERMINAL_TYPES.has(lastType)) return;
        }
      }
      // A live event comes after the stored ones written before it: their note arrived first
      // (dirty), or they are committed but not yet given out (unsettled). It waits for them.
      if (!dirty && !unsettled)
        for (let event = live.shift(); event; event = live.shift()) yield { id: position.id, event };
      if (dirty || signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = deps.clock.setTimeout(() => {
          dirty = true;
          poke();
        }, nextReadIn);
        wake = () => {
          timer.cancel();
          resolve();
        };
      });
    }
  } finally {
    unwatch();
    unwatchWrites?.();
    signal.removeEventListener("abort", poke);
  }
}
