import type { QueueEntry } from "@oah/core";
import { sql } from "drizzle-orm";
import { entryOf, type RunRow } from "../rows";
import { statusOfRuns, UNFINISHED } from "../sql-fragments";
import type { OpContext } from "./context";

export interface QueuedRunsPage {
  after?: { sessionId: string; queueSeq: number };
  enqueuedBefore?: number;
  limit: number;
}

/**
 * Queued runs in queue order (session, then queueSeq), for rebuilding a queue;
 * or, with `enqueuedBefore`, those waiting since before then, longest first.
 */
export async function listQueuedRuns({ db }: OpContext, page: QueuedRunsPage): Promise<QueueEntry[]> {
  // A row comparison, so that a page starts where the last ended in the index (an OR of
  // the two columns would rescan every earlier entry, page after page).
  const after = page.after
    ? sql`AND (session_id, queue_seq) > (${page.after.sessionId}, ${page.after.queueSeq})`
    : sql``;
  // In queue order: the partial index of unfinished runs gives that order (the IN term
  // names its predicate; the status test, hidden from indexes, keeps stale statistics from
  // choosing the status index and a sort of every queued run per page). By wait: the
  // partial index of queued runs.
  const where =
    page.enqueuedBefore === undefined
      ? sql`status IN (${UNFINISHED}) AND ${statusOfRuns} = 'queued' ${after} ORDER BY session_id, queue_seq`
      : sql`status = 'queued' ${after} AND enqueued_at < ${page.enqueuedBefore} ORDER BY enqueued_at`;
  const rows = await db.all<
    Pick<RunRow, "id" | "session_id" | "workspace_id" | "queue_seq" | "priority" | "enqueued_at">
  >(sql`SELECT id, session_id, workspace_id, queue_seq, priority, enqueued_at FROM runs
    WHERE ${where} LIMIT ${page.limit}`);
  return rows.map(entryOf);
}

export async function countQueued({ db }: OpContext): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM runs
    WHERE status IN (${UNFINISHED}) AND status = 'queued'`);
  return Number(row?.n ?? 0);
}
