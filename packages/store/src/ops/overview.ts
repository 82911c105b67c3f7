import type { StorageOverview } from "@oah/contract";
import { RECOVERY_STATES, type RecoveryState, RUN_STATUSES, type RunStatus } from "@oah/core";
import { sql } from "drizzle-orm";
import { iso } from "../rows";
import type { OpContext } from "./context";

/** The admin overview: counts from the counters the triggers keep (schema: runCounts), times from one index lookup each. */
export async function overview({ db }: OpContext): Promise<StorageOverview> {
  const rows = await db.all<{ counter: string; n: number }>(
    sql`SELECT counter, sum(n) AS n FROM run_counts GROUP BY counter`,
  );
  const counters = new Map(rows.map((r) => [r.counter, Number(r.n)]));
  const count = (counter: string) => counters.get(counter) ?? 0;
  // Per state, not over all states at once: each is one lookup at an end of runs_recovery_time_idx.
  const newestOf = RECOVERY_STATES.map(
    (state) =>
      sql`(SELECT max(recovered_at) FROM runs WHERE recovery_state = ${sql.raw(`'${state}'`)}) AS ${sql.raw(`newest_${state}`)}`,
  );
  const [times] = await db.all<Record<string, number | null>>(sql`SELECT
      (SELECT min(recovered_at) FROM runs WHERE recovery_state = 'quarantined') AS oldest_quarantined,
      ${sql.join(newestOf, sql`, `)}`);
  const time = (ms: number | null | undefined) => (ms ? iso(Number(ms)) : null);
  const newest = Math.max(0, ...RECOVERY_STATES.map((state) => Number(times?.[`newest_${state}`] ?? 0)));
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
      oldestQuarantinedAt: time(times?.oldest_quarantined),
      newestQuarantinedAt: time(times?.newest_quarantined),
      newestRecoveredAt: time(newest),
      topQuarantineReasons: reasons,
    },
  };
}
