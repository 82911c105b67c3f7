import type { CancelQueuedResult, InspectedRun, Run, SessionInspection } from "@oah/contract";
import type { SessionQueue } from "@oah/coordination";
import { hostOfWorker, isActive, isTerminal, OahError } from "@oah/core";
import type { RecoveryStore, RunReads } from "@oah/store";
import type { RunService } from "./run-service";

/** Runs read at a time, and in all, of one session. */
const PAGE = 500;
const MAX_PAGES = 20;
/** Finished runs shown before the session's first unfinished one. */
const FINISHED_SHOWN = 20;

/**
 * One session as the queue and the store hold it (docs/spec.md §9): its runs in order with
 * their positions, its head, who holds its lock, its place in line; and the cancel of its
 * queued runs.
 */
export class SessionInspector {
  constructor(
    private readonly store: Pick<RunReads, "listSessionRuns"> & Pick<RecoveryStore, "claimHolders">,
    private readonly queue: SessionQueue,
    private readonly runs: Pick<RunService, "cancel">,
  ) {}

  async inspect(sessionId: string): Promise<SessionInspection> {
    const runs = await this.sessionRuns(sessionId);
    const [view] = await this.queue.inspect([sessionId]);
    const { lock, ready, entries } = view!;
    if (runs.length === 0 && !lock && !ready && entries.length === 0) throw notFound(sessionId);
    const holder = lock
      ? (await this.store.claimHolders([{ sessionId, token: lock.token }])).get(lock.token)
      : undefined;
    const inQueue = new Set(entries.map((e) => e.runId));
    const firstUnfinished = runs.findIndex((r) => !isTerminal(r.status));
    const shownFrom = Math.max(0, (firstUnfinished < 0 ? runs.length : firstUnfinished) - FINISHED_SHOWN);
    return {
      sessionId,
      runs: runs.slice(shownFrom).map((r) => inspected(r, inQueue.has(r.id))),
      head: firstUnfinished < 0 ? null : runs[firstUnfinished]!.id,
      lock: lock && {
        holder: holder?.id ?? null,
        workerId: holder?.workerId ?? null,
        hostId: holder?.workerId ? hostOfWorker(holder.workerId) : null,
        claimedAt: holder?.startedAt ?? null,
        ttlMs: lock.ttlMs,
        silentMs: lock.silentMs,
        token: lock.token,
      },
      ready: ready && {
        lane: ready.lane,
        since: new Date(ready.since).toISOString(),
        workspaceId: ready.workspaceId,
      },
    };
  }

  /**
   * Cancels the session's queued runs from `fromPosition` on (all by default), head first so
   * that none of them starts meanwhile; one that did is told to stop, as any cancel does.
   */
  async cancelQueued(sessionId: string, fromPosition = 1): Promise<CancelQueuedResult> {
    const runs = await this.sessionRuns(sessionId);
    if (runs.length === 0) throw notFound(sessionId);
    const cancelled: string[] = [];
    for (const run of runs.filter((r) => r.status === "queued" && r.seq >= fromPosition)) {
      const { status } = await this.runs.cancel(run.id);
      if (status === "cancelled" || isActive(status)) cancelled.push(run.id);
    }
    return { sessionId, cancelled };
  }

  private async sessionRuns(sessionId: string): Promise<Run[]> {
    const runs: Run[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const batch = await this.store.listSessionRuns(sessionId, { after: runs.at(-1)?.seq, limit: PAGE });
      runs.push(...batch);
      if (batch.length < PAGE) break;
    }
    return runs;
  }
}

const notFound = (sessionId: string) => new OahError("session_not_found", `no session with id ${sessionId}`);

const inspected = (run: Run, inQueue: boolean): InspectedRun => ({
  id: run.id,
  position: run.seq,
  status: run.status,
  priority: run.priority,
  workspaceId: run.workspaceId,
  workerId: run.workerId,
  createdAt: run.createdAt,
  startedAt: run.startedAt,
  heartbeatAt: run.heartbeatAt,
  endedAt: run.endedAt,
  parked: (run.metadata as { parked?: unknown } | null)?.parked === true,
  inQueue,
  ifBusy: run.ifBusy,
});
