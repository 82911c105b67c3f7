import type { StorageOverview } from "@oah/contract";
import { RECOVERY_STATES, type RecoveryState, RUN_STATUSES, type RunStatus } from "@oah/core";
import { iso, type RunRow } from "./rows";

/**
 * The counters a run with these values counts in: `status:<status>`, `recovery:<state>`,
 * `quarantine:<reason>` and `worker_recovery_failed` (the SQL stores keep them in
 * `run_counts` by triggers, migration 0002's `run_counters`).
 */
export function countersOf(
  row: Pick<RunRow, "status" | "recovery_state" | "recovery_reason" | "error_code">,
): string[] {
  const counters = [`status:${row.status}`];
  if (row.recovery_state !== null) counters.push(`recovery:${row.recovery_state}`);
  if (row.recovery_state === "quarantined" && row.recovery_reason !== null)
    counters.push(`quarantine:${row.recovery_reason}`);
  if (row.error_code === "worker_recovery_failed") counters.push("worker_recovery_failed");
  return counters;
}

/** The recovery times of the overview, epoch ms (null or 0: none). */
export interface RecoveryTimes {
  /** The earliest `recovered_at` of the quarantined runs. */
  oldestQuarantined: number | null;
  /** The latest `recovered_at` of each recovery state. */
  newest: Partial<Record<RecoveryState, number | null>>;
}

/** The storage overview from the counters' sums and the recovery times. */
export function overviewOf(counters: ReadonlyMap<string, number>, times: RecoveryTimes): StorageOverview {
  const count = (counter: string) => counters.get(counter) ?? 0;
  const time = (ms: number | null | undefined) => (ms ? iso(Number(ms)) : null);
  const newest = Math.max(0, ...RECOVERY_STATES.map((state) => Number(times.newest[state] ?? 0)));
  const reasons = [...counters]
    .filter(([counter, n]) => counter.startsWith("quarantine:") && n > 0)
    .map(([counter, n]) => ({ reason: counter.slice("quarantine:".length), count: n }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0))
    .slice(0, 5);
  const byState = (state: RecoveryState) => count(`recovery:${state}`);
  return {
    statusCounts: Object.fromEntries(RUN_STATUSES.map((st) => [st, count(`status:${st}`)])) as Record<
      RunStatus,
      number
    >,
    recovery: {
      trackedRuns: RECOVERY_STATES.reduce((sum, state) => sum + byState(state), 0),
      quarantinedRuns: byState("quarantined"),
      requeuedRuns: byState("requeued"),
      failedRecoveryRuns: byState("failed"),
      workerRecoveryFailures: count("worker_recovery_failed"),
      oldestQuarantinedAt: time(times.oldestQuarantined),
      newestQuarantinedAt: time(times.newest.quarantined),
      newestRecoveredAt: time(newest),
      topQuarantineReasons: reasons,
    },
  };
}
