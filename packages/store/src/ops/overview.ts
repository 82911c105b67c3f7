import type { StorageOverview } from "@oah/contract";
import { RECOVERY_STATES, type RecoveryState, RUN_STATUSES, type RunStatus } from "@oah/core";
import { sql } from "drizzle-orm";
import { iso } from "../rows";
import type { OpContext } from "./context";

/**
 * The admin overview: counts from the counters the triggers keep (schema: runCounts; migration
 * 0002's `run_counters`: `status:<status>`, `recovery:<state>`, `quarantine:<reason>` and
 * `worker_recovery_failed`), times from one index lookup each.
 */
export async function overview({ db }: OpContext): Promise<StorageOverview> {
  const rows = await db.all<{ counter: string; n: number }>(
    sql`SELECT counter, sum(n) AS n FROM run_counts GROUP BY counter`,
  );
  const counters = new Map(rows.map((r) => [r.counter, Number(r.n)]));
  // Per state, not over all states at once: each is one lookup at an end of runs_recovery_time_idx.
  const newestOf = RECOVERY_STATES.map(
    (state) =>
      sql`(SELECT max(recovered_at) FROM runs WHERE recovery_state = ${sql.raw(`'${state}'`)}) AS ${sql.raw(`newest_${state}`)}`,
  );
  const [times] = await db.all<Record<string, number | null>>(sql`SELECT
      (SELECT min(recovered_at) FROM runs WHERE recovery_state = 'quarantined') AS oldest_quarantined,
      ${sql.join(newestOf, sql`, `)}`);
  return overviewOf(counters, {
    oldestQuarantined: times?.oldest_quarantined ?? null,
    newest: Object.fromEntries(RECOVERY_STATES.map((state) => [state, times?.[`newest_${state}`] ?? null])),
  });
}

/** The recovery times of the overview, epoch ms (null or 0: none). */
interface RecoveryTimes {
  /** The earliest `recovered_at` of the quarantined runs. */
  oldestQuarantined: number | null;
  /** The latest `recovered_at` of each recovery state. */
  newest: Partial<Record<RecoveryState, number | null>>;
}

/** The storage overview from the counters' sums and the recovery times. */
function overviewOf(counters: ReadonlyMap<string, number>, times: RecoveryTimes): StorageOverview {
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
