import type { LiveEventType } from "@oah/core";

/**
 * A live event: shown on the streams as it happens, never stored (a model's text as it
 * is written; the stored `model.completed` keeps the whole of it).
 */
export interface LiveEvent {
  sessionId: string;
  runId: string;
  type: LiveEventType;
  at: string;
  data: Record<string, unknown>;
}

/**
 * What the event bus carries: that events of these sessions were committed to the store
 * (the streams read them from the store, from their cursors), or a live event itself.
 */
export type EventNote = { kind: "written"; sessionIds: string[] } | { kind: "live"; event: LiveEvent };

/**
 * Wakes the event streams of every API process when events are written by any host (in
 * process here; Redis pub/sub across processes). Best effort: a stream that misses a
 * `written` note finds the events on its next periodic read; a missed live event is gone.
 */
export interface EventBus {
  /** Fire and forget: never throws, never waits for a round trip. */
  publish(note: EventNote): void;
  subscribe(listener: (note: EventNote) => void): () => void;
  close(): Promise<void>;
}

export class LocalEventBus implements EventBus {
  private readonly listeners = new Set<(note: EventNote) => void>();

  publish(note: EventNote): void {
    // Later, as a note from another process would come: a listener never runs inside the writer's call.
    queueMicrotask(() => {
      for (const listener of this.listeners) listener(note);
    });
  }

  subscribe(listener: (note: EventNote) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
