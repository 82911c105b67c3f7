import type { Run } from "@oah/contract";
import type { HostLeases, SessionQueue, SessionQueueView, WorkerRegistry } from "@oah/coordination";
import { hostOfWorker, JAM_KINDS, type JamKind, jamsOf, type QueueEntry } from "@oah/core";
import type { RecoveryStore } from "@oah/store";
import type { Clock } from "../clock";
import { findLongAwaiting, sessionsOf } from "./lost-runs";

/** What the jam scan reads, and the settings it judges by. */
export interface JamScanDeps {
  store: RecoveryStore;
  queue: SessionQueue;
  /** The hosts' leases: without a worker registry (one process), the holder of a lock is alive if its host's lists it. */
  leases: HostLeases;
  /** The worker leases (with Redis): a lock's holder is alive while its worker's lease names its run. */
  workers: WorkerRegistry | null;
  clock: Clock;
  /** Runs waiting longer than this for a slot, or active and silent that long, count (OAH_STALE_RUN_AFTER_MS). */
  staleAfterMs: number;
  /** Holders renew their locks this often (OAH_RUN_HEARTBEAT_INTERVAL_MS). */
  heartbeatIntervalMs: number;
}

/** The sessions holding each kind of jam, and what the repairs act on. */
export interface JamScan {
  sessions: Record<JamKind, string[]>;
  /** What the queue holds of each session looked at. */
  views: Map<string, SessionQueueView>;
  /** The holder of each lock looked at, by token. */
  holders: Map<string, Run>;
  lost: QueueEntry[];
  stale: Run[];
}

/** Sessions looked at from each source, at most. */
const SCAN_LIMIT = 1_000;

/**
 * Finds the jammed sessions (docs/spec.md §7): every session that may hold dirt (with runs
 * waiting long, with an active run past stale, locked, or ready with nothing to claim), or
 * only those named, judged by `jamsOf` from what the queue and the store hold of it.
 */
export async function scanJams(deps: JamScanDeps, only?: readonly string[]): Promise<JamScan> {
  const { store, queue } = deps;
  const now = deps.clock.now();
  const { lost, held } = await findLongAwaiting(store, queue, now - deps.staleAfterMs, SCAN_LIMIT);
  const stale = await store.findStaleRuns({ lastSeenBefore: now - deps.staleAfterMs, limit: SCAN_LIMIT });
  const survey = only ? null : await queue.survey(SCAN_LIMIT);
  const candidates = only ?? [
    ...new Set([
      ...sessionsOf([...lost, ...held, ...stale]),
      ...(survey?.locked ?? []),
      ...(survey?.emptyReady ?? []),
    ]),
  ];
  const views = new Map((await queue.inspect(candidates, 1)).map((v) => [v.sessionId, v]));
  const locks = [...views.values()].flatMap((v) =>
    v.lock ? [{ sessionId: v.sessionId, token: v.lock.token }] : [],
  );
  const holders = await store.claimHolders(locks);
  const blocked = await store.behindUnfinished(
    [...views.values()].flatMap((v) => (v.entries[0] ? [v.entries[0].runId] : [])),
  );
  const live = await liveExecutions(deps, [...holders.values()]);
  const [lostBy, heldBy, staleBy] = [lost, held, stale].map(countBySession) as [Counts, Counts, Counts];
  const sessions = Object.fromEntries(JAM_KINDS.map((k) => [k, [] as string[]])) as Record<JamKind, string[]>;
  for (const sessionId of candidates) {
    const view = views.get(sessionId)!;
    const holder = view.lock ? holders.get(view.lock.token) : undefined;
    const lostRuns = lostBy.get(sessionId) ?? 0;
    const kinds = jamsOf(
      {
        lock: view.lock && {
          silentMs: view.lock.silentMs,
          holderLive: holder !== undefined && live.has(holder.id),
        },
        ready: view.ready !== null,
        queuedRuns: view.entries.length,
        awaitingRuns: lostRuns + (heldBy.get(sessionId) ?? 0),
        lostRuns,
        staleRuns: staleBy.get(sessionId) ?? 0,
        headBlocked: view.entries[0] !== undefined && blocked.has(view.entries[0].runId),
      },
      deps.heartbeatIntervalMs,
    );
    for (const kind of kinds) sessions[kind].push(sessionId);
  }
  return { sessions, views, holders, lost, stale };
}

type Counts = Map<string, number>;

function countBySession(items: readonly { sessionId: string }[]): Counts {
  const counts: Counts = new Map();
  for (const { sessionId } of items) counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
  return counts;
}

/**
 * Which of these runs an execution proves alive: named by its worker's live lease (with a
 * worker registry), else listed by its host's live lease (one process: its own runs).
 */
async function liveExecutions(deps: JamScanDeps, runs: readonly Run[]): Promise<Set<string>> {
  if (runs.length === 0) return new Set();
  if (deps.workers) {
    const leases = await deps.workers.list();
    const running = new Set(leases.map((l) => `${l.workerId} ${l.runId}`));
    return new Set(runs.filter((r) => running.has(`${r.workerId} ${r.id}`)).map((r) => r.id));
  }
  const hostOf = (run: Run) => (run.workerId ? hostOfWorker(run.workerId) : null);
  const leased = await deps.leases.runsOf([
    ...new Set(runs.map(hostOf).filter((h): h is string => h !== null)),
  ]);
  return new Set(runs.filter((r) => leased.get(hostOf(r) ?? "")?.has(r.id)).map((r) => r.id));
}
