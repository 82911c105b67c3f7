import { randomBytes } from "node:crypto";
import {
  capOf,
  DEFAULT_FAIR_SHARE,
  type FairShare,
  type QueueEntry,
  type QueuePressure,
  type RunPriority,
} from "@oah/core";
import type {
  QueueSurvey,
  ReleaseOptions,
  SessionClaim,
  SessionLock,
  SessionQueue,
  SessionQueueView,
} from "./session-queue";
import { Waiters } from "./waiters";
import { byReadySessions, type WorkspaceReadySessions } from "./workspace-ready";
import { WorkspaceTurns } from "./workspace-turns";

interface SessionState {
  /** Waiting runs, ascending queueSeq. */
  runs: QueueEntry[];
  /** `readyOnRelease`: the session's blocker ended while it was locked (readyStranded). */
  lock: { token: string; expiresAt: number; workspaceId: string; readyOnRelease?: boolean } | null;
  /** The workspace whose lanes the session is in, while it is ready. */
  readyIn: string | undefined;
}

/** Ready sessions by lane, in the order they became ready, with that time. */
type Lanes = Record<RunPriority, Map<string, number>>;

/** Subagent sessions first. */
const CLAIM_ORDER: readonly RunPriority[] = ["subagent", "normal"];

interface WorkspaceState {
  /** Its ready sessions: the queue's lanes, those of its sessions alone. */
  lanes: Lanes;
  /** Its sessions whose lock is held, claimed for one of its runs. */
  held: number;
}

export interface MemorySessionQueueOptions {
  lockTtlMs: number;
  now?: () => number;
  /** Weights and caps by workspace (default: equal weights, no caps). */
  fairShare?: FairShare;
}

/**
 * The in-process SessionQueue of the embedded mode: the semantics of the Redis
 * queue in one process. The ready set holds only sessions that have runs and no
 * lock (claims take a session out, releases put it back at the end), so claims
 * never scan past unschedulable entries. Claims go to the workspaces by their fair
 * share, in the same order as the Redis queue's.
 */
export class MemorySessionQueue implements SessionQueue {
  private readonly sessions = new Map<string, SessionState>();
  /** Every ready session, for the pressure read. */
  private readonly lanes: Lanes = { subagent: new Map(), normal: new Map() };
  /** The workspaces with ready sessions or held locks. */
  private readonly workspaces = new Map<string, WorkspaceState>();
  private readonly turns: WorkspaceTurns;
  /** Workspaces whose sessions or locks changed in the call under way: settled at its end. */
  private readonly touched = new Set<string>();
  private readonly waiters = new Waiters();
  private readonly tokenPrefix = randomBytes(6).toString("hex");
  private tokens = 0;
  private readonly lockTtlMs: number;
  private readonly now: () => number;
  private readonly fairShare: FairShare;

  constructor(options: MemorySessionQueueOptions) {
    this.lockTtlMs = options.lockTtlMs;
    this.now = options.now ?? Date.now;
    this.fairShare = options.fairShare ?? DEFAULT_FAIR_SHARE;
    this.turns = new WorkspaceTurns(this.fairShare);
  }

  private isLocked(state: SessionState): boolean {
    return state.lock !== null && state.lock.expiresAt > this.now();
  }

  /** Since its holder took or last renewed it. */
  private silentMs(lock: NonNullable<SessionState["lock"]>): number {
    return this.now() - (lock.expiresAt - this.lockTtlMs);
  }

  private laneOf(sessionId: string): Map<string, number> | undefined {
    if (this.lanes.subagent.has(sessionId)) return this.lanes.subagent;
    if (this.lanes.normal.has(sessionId)) return this.lanes.normal;
    return undefined;
  }

  private workspaceOf(workspaceId: string): WorkspaceState {
    let workspace = this.workspaces.get(workspaceId);
    if (!workspace) {
      workspace = { lanes: { subagent: new Map(), normal: new Map() }, held: 0 };
      this.workspaces.set(workspaceId, workspace);
    }
    return workspace;
  }

  /**
   * Puts a session in (or moves it to) the lanes of its head run, keeping how long it
   * has waited; a session not ready yet goes to the back of the line, or, given
   * `placeSince` (a claim whose run did not start), back to the place it had then.
   */
  private markReady(sessionId: string, state: SessionState, placeSince?: number): void {
    const head = state.runs[0];
    if (!head || this.isLocked(state)) return;
    const current = this.laneOf(sessionId);
    const target = this.lanes[head.priority];
    if (current === target && state.readyIn === head.workspaceId) return;
    const readySince = current?.get(sessionId) ?? placeSince ?? this.now();
    this.unready(sessionId, state);
    for (const lane of [target, this.workspaceOf(head.workspaceId).lanes[head.priority]]) {
      lane.set(sessionId, readySince);
      if (placeSince !== undefined) {
        // Rare (a claimed run that did not start): reorder the lane by ready time.
        const inOrder = [...lane].sort((a, b) => a[1] - b[1]);
        lane.clear();
        for (const [id, at] of inOrder) lane.set(id, at);
      }
    }
    state.readyIn = head.workspaceId;
    this.touched.add(head.workspaceId);
    this.waiters.wakeOne();
  }

  private unready(sessionId: string, state: SessionState): void {
    this.lanes.subagent.delete(sessionId);
    this.lanes.normal.delete(sessionId);
    if (state.readyIn === undefined) return;
    const lanes = this.workspaces.get(state.readyIn)!.lanes;
    lanes.subagent.delete(sessionId);
    lanes.normal.delete(sessionId);
    this.touched.add(state.readyIn);
    state.readyIn = undefined;
  }

  private dropLock(state: SessionState): void {
    if (!state.lock) return;
    this.workspaces.get(state.lock.workspaceId)!.held--;
    this.touched.add(state.lock.workspaceId);
    state.lock = null;
  }

  /**
   * Puts each workspace touched where it belongs now: claimable (a ready session, and
   * fewer held locks than its cap) or not; forgotten once it has neither ready sessions
   * nor held locks. When no workspace is left, nobody is owed anything: the turns start over.
   */
  private settleTouched(): void {
    for (const workspaceId of this.touched) {
      const workspace = this.workspaces.get(workspaceId);
      const ready = workspace ? workspace.lanes.subagent.size + workspace.lanes.normal.size : 0;
      const cap = capOf(this.fairShare, workspaceId);
      this.turns.set(workspaceId, ready > 0 && (cap === undefined || workspace!.held < cap));
      if (workspace && ready === 0 && workspace.held === 0) this.workspaces.delete(workspaceId);
    }
    this.touched.clear();
    if (this.workspaces.size === 0) this.turns.reset();
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
      state = { runs: [], lock: null, readyIn: undefined };
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
    this.settleTouched();
  }

  async claim(): Promise<SessionClaim | null> {
    for (let workspaceId = this.turns.next(); workspaceId !== undefined; workspaceId = this.turns.next()) {
      const workspace = this.workspaces.get(workspaceId)!;
      for (const priority of CLAIM_ORDER) {
        for (const [sessionId, readySince] of workspace.lanes[priority]) {
          const state = this.sessions.get(sessionId)!;
          this.unready(sessionId, state);
          if (state.runs.length === 0 || this.isLocked(state)) continue;
          this.turns.charge(workspaceId);
          const entry = state.runs.shift()!;
          const token = `${this.tokenPrefix}-${++this.tokens}`;
          this.dropLock(state); // one that lapsed
          state.lock = { token, expiresAt: this.now() + this.lockTtlMs, workspaceId };
          workspace.held++;
          this.settleTouched();
          return { sessionId, token, workspaceId, entry, readySince };
        }
      }
      this.settleTouched();
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

  async release(lock: SessionLock, options: ReleaseOptions = {}): Promise<boolean> {
    const state = this.sessions.get(lock.sessionId);
    if (!state) return false;
    const renewed =
      state.lock !== null &&
      options.ifSilentForMs !== undefined &&
      this.silentMs(state.lock) < options.ifSilentForMs;
    const ours = state.lock?.token === lock.token && !renewed;
    const held = ours && this.isLocked(state);
    const heldFor = state.lock?.workspaceId;
    const blockerEnded = ours && state.lock?.readyOnRelease === true;
    if (ours) this.dropLock(state);
    if (options.putBack) this.insert(state, options.putBack);
    // An earlier run enqueued while the lock was held is the head now: it need not wait.
    const earlierArrived = options.putBack !== undefined && state.runs[0]?.runId !== options.putBack.runId;
    if (options.ready !== false || earlierArrived || blockerEnded)
      this.markReady(lock.sessionId, state, options.readySince);
    this.forget(lock.sessionId, state);
    this.settleTouched();
    // A capped workspace that may take one more session now: its ready sessions were
    // announced when they became ready, maybe while it could take none.
    if (held && capOf(this.fairShare, heldFor!) !== undefined && this.turns.isClaimable(heldFor!))
      this.waiters.wakeOne();
    return held;
  }

  async remove(sessionId: string, runId: string): Promise<boolean> {
    const state = this.sessions.get(sessionId);
    const index = state?.runs.findIndex((r) => r.runId === runId) ?? -1;
    if (!state || index < 0) return false;
    state.runs.splice(index, 1);
    if (state.runs.length === 0) this.unready(sessionId, state);
    else if (index === 0 && state.readyIn !== undefined) this.markReady(sessionId, state);
    this.forget(sessionId, state);
    this.settleTouched();
    return true;
  }

  async readyStranded(
    sessionIds: readonly string[],
    options: { blockerEnded?: boolean } = {},
  ): Promise<string[]> {
    const stranded: string[] = [];
    for (const sessionId of sessionIds) {
      const state = this.sessions.get(sessionId);
      if (state && this.isLocked(state) && options.blockerEnded) state.lock!.readyOnRelease = true;
      if (!state || state.runs.length === 0 || this.isLocked(state) || state.readyIn !== undefined) continue;
      this.markReady(sessionId, state);
      stranded.push(sessionId);
    }
    this.settleTouched();
    return stranded;
  }

  waitForWork(signal: AbortSignal): Promise<void> {
    return this.waiters.wait(signal, this.turns.anyClaimable);
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

  async readyByWorkspace(limit: number): Promise<WorkspaceReadySessions[]> {
    const found: WorkspaceReadySessions[] = [];
    for (const [workspaceId, { lanes }] of this.workspaces) {
      if (found.length === limit) break;
      const readySessions = lanes.subagent.size + lanes.normal.size;
      if (readySessions > 0) found.push({ workspaceId, readySessions });
    }
    return found.sort(byReadySessions);
  }

  async inspect(sessionIds: readonly string[], maxEntries = 1_000): Promise<SessionQueueView[]> {
    return sessionIds.map((sessionId) => {
      const state = this.sessions.get(sessionId);
      if (!state) return { sessionId, lock: null, ready: null, entries: [] };
      const { lock } = state;
      const lane = this.laneOf(sessionId);
      return {
        sessionId,
        lock:
          lock && this.isLocked(state)
            ? { token: lock.token, ttlMs: lock.expiresAt - this.now(), silentMs: this.silentMs(lock) }
            : null,
        ready:
          lane && state.readyIn !== undefined
            ? {
                lane: lane === this.lanes.subagent ? "subagent" : "normal",
                since: lane.get(sessionId)!,
                workspaceId: state.readyIn,
              }
            : null,
        entries: state.runs.slice(0, maxEntries),
      };
    });
  }

  async survey(limit: number): Promise<QueueSurvey> {
    const survey: QueueSurvey = { locked: [], emptyReady: [] };
    for (const [sessionId, state] of this.sessions) {
      if (this.isLocked(state)) {
        if (survey.locked.length < limit) survey.locked.push(sessionId);
      } else if (state.readyIn !== undefined && state.runs.length === 0 && survey.emptyReady.length < limit) {
        survey.emptyReady.push(sessionId);
      }
    }
    return survey;
  }

  async dropEmptyReady(sessionIds: readonly string[]): Promise<string[]> {
    const dropped: string[] = [];
    for (const sessionId of sessionIds) {
      const state = this.sessions.get(sessionId);
      if (!state || state.readyIn === undefined || state.runs.length > 0 || this.isLocked(state)) continue;
      this.unready(sessionId, state);
      this.forget(sessionId, state);
      dropped.push(sessionId);
    }
    this.settleTouched();
    return dropped;
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
