import type { StorageOverview } from "@oah/contract";
import { RECOVERY_STATES } from "@oah/core";
import { sql } from "drizzle-orm";
import { overviewOf } from "../overview";
import type { OpContext } from "./context";

/** The admin overview: counts from the counters the triggers keep (schema: runCounts), times from one index lookup each. */
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
