import type { EventBus, EventNote } from "@oah/coordination";
import type { RedisClient } from "../client";
import { redisKeys } from "../keys";
import { PubSubChannel } from "./pubsub-channel";

/**
 * Event notes over Redis pub/sub, as JSON messages on one channel. The `written` notes of
 * one turn of the event loop go out as one message (the sessions of a group commit
 * together); a live event first flushes them, so that notes keep the order they were given in.
 */
export class RedisEventBus implements EventBus {
  private readonly channel: PubSubChannel<EventNote>;
  private pending = new Set<string>();
  private flushScheduled = false;

  constructor(redis: RedisClient, prefix: string) {
    this.channel = new PubSubChannel(redis, redisKeys(prefix).eventChannel, parseNote);
  }

  publish(note: EventNote): void {
    if (note.kind === "written") {
      for (const id of note.sessionIds) this.pending.add(id);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
      return;
    }
    this.flush();
    this.send(note);
  }

  subscribe(listener: (note: EventNote) => void): () => void {
    return this.channel.subscribe(listener);
  }

  /** Resolves once this process receives notes. */
  ready(): Promise<void> {
    return this.channel.ready();
  }

  async close(): Promise<void> {
    this.flush();
    this.channel.close();
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.size === 0) return;
    const sessionIds = [...this.pending];
    this.pending = new Set();
    this.send({ kind: "written", sessionIds });
  }

  private send(note: EventNote): void {
    // Best effort: a stream that misses a note reads the store on its next period.
    this.channel.publish(JSON.stringify(note)).catch(() => {});
  }
}

function parseNote(message: string): EventNote | null {
  try {
    const note = JSON.parse(message) as EventNote;
    if (note.kind === "written" && Array.isArray(note.sessionIds)) return note;
    if (note.kind === "live" && typeof note.event?.sessionId === "string") return note;
  } catch {
    // Not one of ours: ignored.
  }
  return null;
}
