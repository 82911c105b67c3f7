import { randomBytes } from "node:crypto";
import type { QueueEntry, QueuePressure, RunPriority } from "@oah/core";
import type { ReleaseOptions, SessionClaim, SessionLock, SessionQueue } from "./session-queue";
import { Waiters } from "./waiters";

interface SessionState {
  /** Waiting runs, ascending queueSeq. */
  runs: QueueEntry[];
  lock: { token: string; expiresAt: number } | null;
}

export interface MemorySessionQueueOptions {
  lockTtlMs: number;
  now?: () => number;
}

/**
 * The in-process SessionQueue of the embedded mode: the semantics of the Redis
 * queue in one process. The ready set holds only sessions that have runs and no
 * lock (claims take a session out, releases put it back at the end), so claims
 * never scan past unschedulable entries.
 */
export class MemorySessionQueue implements SessionQueue {
  private readonly sessions = new Map<string, SessionState>();
  /** Ready sessions by lane, in the order they became ready, with that time. */
  private readonly lanes: Record<RunPriority, Map<string, number>> = {
    subagent: new Map(),
    normal: new Map(),
  };
  private readonly waiters = new Waiters();
  private readonly tokenPrefix = randomBytes(6).toString("hex");
  private tokens = 0;
  private readonly lockTtlMs: number;
  private readonly now: () => number;

  constructor(options: MemorySessionQueueOptions) {
    this.lockTtlMs = options.lockTtlMs;
    this.now = options.now ?? Date.now;
  }

  private isLocked(state: SessionState): boolean {
    return state.lock !== null && state.lock.expiresAt > this.now();
  }

  private laneOf(sessionId: string): Map<string, number> | undefined {
    if (this.lanes.subagent.has(sessionId)) return this.lanes.subagent;
    if (this.lanes.normal.has(sessionId)) return this.lanes.normal;
    return undefined;
  }

  /**
   * Puts a session in (or moves it to) the lane of its head run, keeping how long it
   * has waited; a session not ready yet goes to the back of the line, or, given
   * `placeSince` (a claim whose run did not start), back to the place it had then.
   */
  private markReady(sessionId: string, state: SessionState, placeSince?: number): void {
    const head = state.runs[0];
    if (!head || this.isLocked(state)) return;
    const current = this.laneOf(sessionId);
    const target = this.lanes[head.priority];
    if (current === target) return;
    const readySince = current?.get(sessionId) ?? placeSince ?? this.now();
    current?.delete(sessionId);
    target.set(sessionId, readySince);
    if (placeSince !== undefined) {
      // Rare (a claimed run that did not start): reorder the lane by ready time.
      const inOrder = [...target].sort((a, b) => a[1] - b[1]);
      target.clear();
      for (const [id, at] of inOrder) target.set(id, at);
    }
    this.waiters.wakeOne();
  }

  private unready(sessionId: string): void {
    this.lanes.subagent.delete(sessionId);
    this.lanes.normal.delete(sessionId);
  }

  private forget(sessionId: string, state: SessionState): void {
    if (state.runs.length === 0 && state.lock === null) this.sessions.delete(sessionId);
  }

  private insert(state: SessionState, entry: QueueEntry): void {
    if (state.runs.some((r) => r.runId === entry.runId)) return;
    let i = state.runs.length;
    while (i > 0 && state.runs[i - 1]!.queueSeq > entry.queueSeq) i--;
    state.runs.splice(i, 0, entry);
  }

  private stateOf(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (!state) {
      state = { runs: [], lock: null };
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  async enqueue(entries: readonly QueueEntry[]): Promise<void> {
    for (const entry of entries) {
      const state = this.stateOf(entry.sessionId);
      this.insert(state, entry);
      this.markReady(entry.sessionId, state);
    }
  }

  async claim(): Promise<SessionClaim | null> {
    for (const lane of [this.lanes.subagent, this.lanes.normal]) {
      for (const [sessionId, readySince] of lane) {
        const state = this.sessions.get(sessionId);
        lane.delete(sessionId);
        if (!state || state.runs.length === 0 || this.isLocked(state)) continue;
        const entry = state.runs.shift()!;
        const token = `${this.tokenPrefix}-${++this.tokens}`;
        state.lock = { token, expiresAt: this.now() + this.lockTtlMs };
        return { sessionId, token, workspaceId: entry.workspaceId, entry, readySince };
      }
    }
    return null;
  }

  async renewLocks(locks: readonly SessionLock[]): Promise<string[]> {
    const lost: string[] = [];
    for (const { sessionId, token } of locks) {
      const state = this.sessions.get(sessionId);
      if (!state || !this.isLocked(state)) continue; // gone: nothing to renew, nothing lost
      if (state.lock!.token === token) state.lock!.expiresAt = this.now() + this.lockTtlMs;
      else lost.push(sessionId);
    }
    return lost;
  }

  async release({ sessionId, token }: SessionLock, options: ReleaseOptions = {}): Promise<boolean> {
    const state = this.sessions.get(sessionId);
    if (!state) return false;
    const held = state.lock?.token === token && this.isLocked(state);
    if (state.lock?.token === token) state.lock = null;
    if (options.putBack) this.insert(state, options.putBack);
    // An earlier run enqueued while the lock was held is the head now: it need not wait.
    const earlierArrived = options.putBack !== undefined && state.runs[0]?.runId !== options.putBack.runId;
    if (options.ready !== false || earlierArrived) this.markReady(sessionId, state, options.readySince);
    this.forget(sessionId, state);
    return held;
  }

  async remove(sessionId: string, runId: string): Promise<boolean> {
    const state = this.sessions.get(sessionId);
    const index = state?.runs.findIndex((r) => r.runId === runId) ?? -1;
    if (!state || index < 0) return false;
    state.runs.splice(index, 1);
    if (state.runs.length === 0) this.unready(sessionId);
    else if (index === 0 && this.laneOf(sessionId)) this.markReady(sessionId, state);
    this.forget(sessionId, state);
    return true;
  }

  async readyStranded(sessionIds: readonly string[]): Promise<string[]> {
    const stranded: string[] = [];
    for (const sessionId of sessionIds) {
      const state = this.sessions.get(sessionId);
      if (!state || state.runs.length === 0 || this.isLocked(state) || this.laneOf(sessionId)) continue;
      this.markReady(sessionId, state);
      stranded.push(sessionId);
    }
    return stranded;
  }

  waitForWork(signal: AbortSignal): Promise<void> {
    return this.waiters.wait(signal, this.lanes.subagent.size > 0 || this.lanes.normal.size > 0);
  }

  nudge(): void {
    this.waiters.wakeAll();
  }

  async pressure(): Promise<QueuePressure> {
    const now = this.now();
    const heads = [this.lanes.subagent, this.lanes.normal].map((lane) => lane.values().next().value);
    const oldest = Math.min(...heads.filter((v): v is number => v !== undefined));
    const ready = this.lanes.subagent.size + this.lanes.normal.size;
    // Locked and emptied sessions leave the ready set at once, so it holds no such entries.
    return {
      readyQueueDepth: ready,
      uniqueReadySessionCount: ready,
      subagentReadySessionCount: this.lanes.subagent.size,
      subagentReadyQueueDepth: this.lanes.subagent.size,
      lockedReadySessionCount: 0,
      staleReadySessionCount: 0,
      readySessionCount: ready,
      oldestSchedulableReadyAgeMs: Number.isFinite(oldest) ? now - oldest : 0,
    };
  }

  async *entries(): AsyncIterable<QueueEntry[]> {
    for (const state of this.sessions.values()) if (state.runs.length > 0) yield [...state.runs];
  }

  async size(): Promise<number> {
    let n = 0;
    for (const state of this.sessions.values()) n += state.runs.length;
    return n;
  }

  async lost(entries: readonly QueueEntry[]): Promise<string[]> {
    return entries
      .filter((e) => {
        const state = this.sessions.get(e.sessionId);
        return !state || (!this.isLocked(state) && !state.runs.some((r) => r.runId === e.runId));
      })
      .map((e) => e.runId);
  }

  private live = false;

  async markLive(): Promise<boolean> {
    const wasLive = this.live;
    this.live = true;
    return !wasLive;
  }

  async close(): Promise<void> {
    this.waiters.wakeAll();
  }
}
