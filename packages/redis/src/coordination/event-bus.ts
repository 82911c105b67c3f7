import type { EventBus, EventNote } from "@oah/engine";
import { type RedisClient, subscriberOf } from "../client";
import { redisKeys } from "../keys";

/**
 * Event notes over Redis pub/sub, as JSON messages on one channel. The `written` notes of
 * one turn of the event loop go out as one message (the sessions of a group commit
 * together); a live event first flushes them, so that notes keep the order they were given in.
 */
export class RedisEventBus implements EventBus {
  private readonly subscriber: RedisClient;
  private readonly channel: string;
  private readonly listeners = new Set<(note: EventNote) => void>();
  private subscribed: Promise<unknown> | undefined;
  private pending = new Set<string>();
  private flushScheduled = false;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.channel = redisKeys(prefix).eventChannel;
    // Subscriptions are restored by ioredis after a reconnection.
    this.subscriber = subscriberOf(redis);
    this.subscriber.on("error", () => {});
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const note = parseNote(message);
      if (!note) return;
      for (const listener of this.listeners) listener(note);
    });
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
    this.listeners.add(listener);
    this.subscribed ??= this.subscriber.subscribe(this.channel).catch(() => {});
    return () => this.listeners.delete(listener);
  }

  /** Resolves once this process receives notes. */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  async close(): Promise<void> {
    this.flush();
    this.listeners.clear();
    this.subscriber.disconnect();
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
    this.redis.publish(this.channel, JSON.stringify(note)).catch(() => {});
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
