import type { QueueEntry } from "@oah/core";
import { sql } from "drizzle-orm";
import { entryOf, type RunRow } from "../rows";
import { ACTIVE, statusOfRuns, UNFINISHED } from "../sql-fragments";
import type { OpContext } from "./context";

export interface WorkspaceActivity {
  workspaceId: string;
  /** Running, or waiting for a tool result while holding its slot (hold mode). */
  executingRuns: number;
  parkedRuns: number;
}

export type AwaitingSlotPage =
  | { after?: { sessionId: string; queueSeq: number }; limit: number }
  | { enqueuedBefore: number; limit: number };

/**
 * A run awaits a slot when it is queued, or parked with its tool result (to be resumed). The
 * second term repeats the predicate of runs_resumable_idx literally, as SQLite needs to use it.
 */
const RESUMABLE = sql.raw("parked_at IS NOT NULL AND tool_result IS NOT NULL");
const ENTRY_COLUMNS = sql.raw("id, session_id, workspace_id, queue_seq, priority, enqueued_at, parked_at");
type EntryRow = Pick<
  RunRow,
  "id" | "session_id" | "workspace_id" | "queue_seq" | "priority" | "enqueued_at" | "parked_at"
>;

/**
 * The queue entries of runs awaiting a slot in queue order (session, then queueSeq), for
 * rebuilding a queue; or, with `enqueuedBefore`, those waiting since before then, longest first.
 */
export async function listAwaitingSlot({ db }: OpContext, page: AwaitingSlotPage): Promise<QueueEntry[]> {
  if ("enqueuedBefore" in page) {
    // Each kind by its own partial index (queued runs, resumable ones), then merged.
    const before = page.enqueuedBefore;
    const rows = await db.all<EntryRow>(sql`SELECT * FROM (SELECT ${ENTRY_COLUMNS} FROM runs
        WHERE status = 'queued' AND enqueued_at < ${before} ORDER BY enqueued_at LIMIT ${page.limit}) AS queued
      UNION ALL SELECT * FROM (SELECT ${ENTRY_COLUMNS} FROM runs
        WHERE ${RESUMABLE} AND enqueued_at < ${before} ORDER BY enqueued_at LIMIT ${page.limit}) AS resumable
      ORDER BY enqueued_at LIMIT ${page.limit}`);
    return rows.map(entryOf);
  }
  // A row comparison, so that a page starts where the last ended in the index (an OR of
  // the two columns would rescan every earlier entry, page after page).
  const after = page.after
    ? sql`AND (session_id, queue_seq) > (${page.after.sessionId}, ${page.after.queueSeq})`
    : sql``;
  // The partial index of unfinished runs gives queue order (the IN term names its predicate;
  // the status test, hidden from indexes, keeps stale statistics from choosing the status
  // index and a sort of every queued run per page).
  const rows = await db.all<EntryRow>(sql`SELECT ${ENTRY_COLUMNS} FROM runs
    WHERE status IN (${UNFINISHED}) AND (${statusOfRuns} = 'queued' OR (${RESUMABLE})) ${after}
    ORDER BY session_id, queue_seq LIMIT ${page.limit}`);
  return rows.map(entryOf);
}

/** Which of these runs await a slot: the queue entries to keep. */
export async function awaitingSlot({ db }: OpContext, runIds: readonly string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const ids = sql.join(
    runIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await db.all<{ id: string }>(sql`SELECT id FROM runs
    WHERE id IN (${ids}) AND (status = 'queued' OR (${RESUMABLE}))`);
  return new Set(rows.map((r) => r.id));
}

/** How many runs await a slot. */
export async function countAwaitingSlot({ db }: OpContext): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`SELECT
    (SELECT count(*) FROM runs WHERE status IN (${UNFINISHED}) AND status = 'queued')
    + (SELECT count(*) FROM runs WHERE ${RESUMABLE}) AS n`);
  return Number(row?.n ?? 0);
}

/** Active runs by workspace, executing (holding a slot) or parked, for the pool's report. */
export async function activeByWorkspace({ db }: OpContext): Promise<WorkspaceActivity[]> {
  const rows = await db.all<{ workspace_id: string; executing: number; parked: number }>(sql`
    SELECT workspace_id, SUM(CASE WHEN parked_at IS NULL THEN 1 ELSE 0 END) AS executing,
      SUM(CASE WHEN parked_at IS NULL THEN 0 ELSE 1 END) AS parked
    FROM runs WHERE status IN (${ACTIVE}) GROUP BY workspace_id ORDER BY workspace_id`);
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    executingRuns: Number(r.executing),
    parkedRuns: Number(r.parked),
  }));
}
