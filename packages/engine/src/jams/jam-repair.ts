import type { JamRepair } from "@oah/contract";
import { type JamKind, orphanLockSilenceMs } from "@oah/core";
import type { Logger } from "../logger";
import { type RecoveryOptions, recoverStaleBatch } from "../recovery/recover-stale-runs";
import type { JamScan, JamScanDeps } from "./jam-scan";
import { enqueueLost, sessionsOf } from "./lost-runs";

export interface JamRepairDeps extends JamScanDeps {
  /** How stale runs are recovered: the periodic scan's policy, as this host. */
  recovery: Omit<RecoveryOptions, "store" | "queue" | "leases" | "logger" | "lastSeenBefore">;
  logger: Logger;
}

/**
 * The repair of each kind of jam (docs/spec.md §7) for the sessions that hold it: each fix is
 * the one reconcile or the stale-run scan makes on its period, re-checked where it is made, so
 * that a session no longer jammed is left as it is. Returns the sessions it repaired.
 */
const REPAIRS: Record<
  JamKind,
  (sessions: string[], scan: JamScan, deps: JamRepairDeps) => Promise<string[]>
> = {
  // Atomically, and only if the holder has still not renewed it: a live holder keeps its lock.
  async orphan_lock(sessions, scan, deps) {
    const broken: string[] = [];
    for (const sessionId of sessions) {
      const { lock, ready } = scan.views.get(sessionId)!;
      const holder = scan.holders.get(lock!.token);
      const released = await deps.queue.release(
        {
          sessionId,
          token: lock!.token,
          workspaceId: holder?.workspaceId ?? ready?.workspaceId ?? "default",
        },
        { ifSilentForMs: orphanLockSilenceMs(deps.heartbeatIntervalMs) },
      );
      if (released) broken.push(sessionId);
    }
    return broken;
  },
  stale_ready: (sessions, _scan, deps) => deps.queue.dropEmptyReady(sessions),
  async lost_run(sessions, scan, deps) {
    const wanted = new Set(sessions);
    return sessionsOf(
      await enqueueLost(
        deps.store,
        deps.queue,
        scan.lost.filter((e) => wanted.has(e.sessionId)),
      ),
    );
  },
  lost_wake: (sessions, _scan, deps) => deps.queue.readyStranded(sessions),
  async stale_active(sessions, scan, deps) {
    const wanted = new Set(sessions);
    const stale = scan.stale.filter((r) => wanted.has(r.sessionId));
    const outcomes = await recoverStaleBatch(stale, {
      ...deps.recovery,
      store: deps.store,
      queue: deps.queue,
      leases: deps.leases,
      logger: deps.logger,
      lastSeenBefore: deps.clock.now() - deps.staleAfterMs,
    });
    const done = stale.filter((r) => {
      const outcome = outcomes.get(r.id);
      return outcome !== "held" && outcome !== "gone";
    });
    return sessionsOf(done);
  },
};

/**
 * Repairs one kind of jam: in the sessions the scan found holding it, or in those named that
 * hold it. A session named that does not hold it, or whose fix was refused, is skipped.
 */
export async function repairJams(
  kind: JamKind,
  scan: JamScan,
  deps: JamRepairDeps,
  named?: readonly string[],
): Promise<JamRepair> {
  const jammed = new Set(scan.sessions[kind]);
  const targets = named ? [...new Set(named)] : scan.sessions[kind];
  const repaired = new Set(
    await REPAIRS[kind](
      targets.filter((s) => jammed.has(s)),
      scan,
      deps,
    ),
  );
  const skipped = targets.filter((s) => !repaired.has(s));
  const result: JamRepair = {
    kind,
    repaired: repaired.size,
    skipped: skipped.length,
    sessions: { repaired: [...repaired], skipped },
  };
  if (targets.length > 0)
    deps.logger.warn({ kind, repaired: result.repaired, skipped: result.skipped }, "jams repaired");
  return result;
}
