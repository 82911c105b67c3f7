import type { DeadLetterGroup, DeadLetters } from "@oah/contract";
import type { RecoveryReason, RunErrorCode } from "@oah/core";
import { sql } from "drizzle-orm";
import { iso } from "../rows";
import type { OpContext } from "./context";

/** How many of a group's last executions are shown, and how many groups at most. */
const DEAD_LETTER_EXECUTIONS = 3;
const DEAD_LETTER_GROUPS = 500;

/** A quarantined run among its group's newest, with its group's figures. */
interface DeadLetterRow {
  reason: string;
  error_code: string | null;
  workspace_id: string;
  n: number | string;
  oldest: number | string;
  newest: number | string;
  id: string;
  worker_id: string | null;
  error_message: string | null;
  recovered_at: number | string;
}

/**
 * The quarantined runs grouped by reason × error code × workspace (docs/spec.md §13), in one
 * pass of the quarantined runs' index: each group's figures and its newest runs by window.
 */
export async function deadLetters({ db }: OpContext, workspaceId?: string): Promise<DeadLetters> {
  const rows = await db.all<DeadLetterRow>(sql`SELECT reason, error_code, workspace_id, n, oldest, newest,
      id, worker_id, error_message, recovered_at FROM (
      SELECT recovery_reason AS reason, error_code, workspace_id, id, worker_id, error_message, recovered_at,
        count(*) OVER g AS n, min(recovered_at) OVER g AS oldest, max(recovered_at) OVER g AS newest,
        row_number() OVER (PARTITION BY recovery_reason, error_code, workspace_id
          ORDER BY recovered_at DESC, id DESC) AS nth
      FROM runs
      WHERE recovery_state = 'quarantined' AND recovery_reason IS NOT NULL
        ${workspaceId === undefined ? sql`` : sql`AND workspace_id = ${workspaceId}`}
      WINDOW g AS (PARTITION BY recovery_reason, error_code, workspace_id)
    ) newest WHERE nth <= ${DEAD_LETTER_EXECUTIONS}`);
  return groupDeadLetters(rows);
}

/** The rows of the newest runs of each group, as groups: largest first, then most recent. */
function groupDeadLetters(rows: readonly DeadLetterRow[]): DeadLetters {
  const groups = new Map<string, DeadLetterGroup>();
  for (const row of rows) {
    const key = JSON.stringify([row.reason, row.error_code, row.workspace_id]);
    let group = groups.get(key);
    if (!group) {
      group = {
        reason: row.reason as RecoveryReason,
        errorCode: row.error_code as RunErrorCode | null,
        workspaceId: row.workspace_id,
        count: Number(row.n),
        oldestAt: iso(Number(row.oldest)),
        newestAt: iso(Number(row.newest)),
        lastExecutions: [],
      };
      groups.set(key, group);
    }
    group.lastExecutions.push({
      runId: row.id,
      workerId: row.worker_id,
      errorMessage: row.error_message,
      at: iso(Number(row.recovered_at)),
    });
  }
  const newestFirst = (a: { at: string; runId: string }, b: { at: string; runId: string }) =>
    b.at.localeCompare(a.at) || b.runId.localeCompare(a.runId);
  const sorted = [...groups.values()].sort(
    (a, b) => b.count - a.count || b.newestAt.localeCompare(a.newestAt),
  );
  for (const group of sorted) group.lastExecutions.sort(newestFirst);
  return { groups: sorted.slice(0, DEAD_LETTER_GROUPS) };
}
