import type { EventBus, EventNote, LiveEvent } from "@oah/coordination";

export interface SessionWatcher {
  /** Events of the session were written: read the store. */
  written(): void;
  live(event: LiveEvent): void;
}

/**
 * The one subscription of a process to the event bus, handing each note to the streams
 * of the sessions it names (a note names the sessions of a whole group commit, and a
 * process may hold a thousand streams: each note costs a lookup per session, not a scan).
 */
export class StreamHub {
  private readonly bySession = new Map<string, Set<SessionWatcher>>();
  private readonly everyWrite = new Set<(sessionIds: string[]) => void>();
  private readonly anyCommit = new Set<() => void>();
  private subscribed = false;

  constructor(private readonly bus: EventBus) {}

  watchSession(sessionId: string, watcher: SessionWatcher): () => void {
    this.subscribe();
    const watchers = this.bySession.get(sessionId) ?? new Set<SessionWatcher>();
    this.bySession.set(sessionId, watchers);
    watchers.add(watcher);
    return () => {
      watchers.delete(watcher);
      if (watchers.size === 0) this.bySession.delete(sessionId);
    };
  }

  /** Every `written` note, whatever its sessions (the console's storage page). */
  watchWrites(listener: (sessionIds: string[]) => void): () => void {
    this.subscribe();
    this.everyWrite.add(listener);
    return () => this.everyWrite.delete(listener);
  }

  /**
   * Every `written` note, for a stream waiting for older transactions to end (any commit may
   * be theirs); not a stream of its own.
   */
  watchAnyCommit(listener: () => void): () => void {
    this.subscribe();
    this.anyCommit.add(listener);
    return () => this.anyCommit.delete(listener);
  }

  /** Streams open now. */
  get watched(): number {
    let n = this.everyWrite.size;
    for (const watchers of this.bySession.values()) n += watchers.size;
    return n;
  }

  private subscribe(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    this.bus.subscribe((note) => this.deliver(note));
  }

  private deliver(note: EventNote): void {
    if (note.kind === "live") {
      for (const watcher of this.bySession.get(note.event.sessionId) ?? []) watcher.live(note.event);
      return;
    }
    for (const listener of this.everyWrite) listener(note.sessionIds);
    for (const listener of this.anyCommit) listener();
    for (const sessionId of note.sessionIds) {
      for (const watcher of this.bySession.get(sessionId) ?? []) watcher.written();
    }
  }
}
