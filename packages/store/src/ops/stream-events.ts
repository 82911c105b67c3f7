import type { RunEvent } from "@oah/contract";
import type { RunEventType } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { decodeEvent, type EventRow } from "../rows";
import type { BatchedOp, OpContext } from "./context";

/** The events of one stream: of a run, or of every run of a session. */
export type EventScope = { runId: string } | { sessionId: string };

/** Where a stream is: after this event, in the stream's order (see streamEvents). */
export interface EventPosition {
  /** The transaction that wrote it, as text (PostgreSQL); "0" where ids are in commit order. */
  tx: string;
  id: number;
}

/** Where a stream resumes: after this event, of this type. */
export interface ResumePoint {
  position: EventPosition;
  type: RunEventType;
}

export interface EventStreamPage {
  events: RunEvent[];
  /** The position after the page's last event; null when the page is empty. */
  last: EventPosition | null;
  /** Events past the page are committed but not yet in order: read again soon. */
  unsettled: boolean;
  /** The page was cut at its limit: there may be more at once. */
  full: boolean;
}

/** Where a stream starts when it is given no event to resume after. */
export const STREAM_START: EventPosition = { tx: "0", id: 0 };

const scopeOf = (scope: EventScope, runs: SQL): SQL =>
  "runId" in scope ? sql`${runs}.id = ${scope.runId}` : sql`${runs}.session_id = ${scope.sessionId}`;

/**
 * The position of the event `eventId` in its stream, to resume after it, and its type;
 * null when the scope has no such event.
 */
export async function eventPosition(
  { db }: OpContext,
  scope: EventScope,
  eventId: number,
): Promise<ResumePoint | null> {
  const tx = db.dialect === "postgres" ? sql`e.tx::text` : sql`'0'`;
  const [row] = await db.all<{ tx: string; id: number; type: RunEventType }>(sql`SELECT ${tx} AS tx, e.id,
    e.type FROM run_events e JOIN runs r ON r.id = e.run_id
    WHERE e.id = ${eventId} AND ${scopeOf(scope, sql`r`)}`);
  return row ? { position: { tx: String(row.tx), id: Number(row.id) }, type: row.type } : null;
}

interface StreamRead {
  scope: EventScope;
  after: EventPosition;
  limit: number;
}

type StreamRow = EventRow & { k?: number; tx: string; settled: boolean };

/**
 * The events of a stream after a position, in commit order, never one out of order. Reads asked
 * while reads are in flight go together in the next (up to 4 batches at once).
 */
export function streamEvents(
  ctx: OpContext,
  scope: EventScope,
  after: EventPosition,
  limit: number,
): Promise<EventStreamPage> {
  return ctx.batch(STREAM_READS).submit({ scope, after, limit });
}

/**
 * The events of streams after their positions, in the order their transactions committed,
 * so that a reader that keeps only its last position misses none.
 *
 * SQLite commits one write at a time, in id order. PostgreSQL hands ids out when rows are
 * written, not when they commit: an event with a lower id can become visible after one
 * with a higher id. Its events are ordered by their writer's transaction id instead, and
 * only those of transactions older than every one still in progress are given out
 * ("settled"): whatever commits later sorts after them. Committed events not yet settled
 * are left for the next read, which `unsettled` asks for soon. The horizon is the
 * server's: a transaction left open in any database holds every stream back until it ends.
 *
 * On PostgreSQL the reads of many streams (every stream a note wakes) go in one statement,
 * of the same text whatever their number: prepared once, planned once.
 */
async function streamEventsBatch({ db }: OpContext, reads: StreamRead[]): Promise<EventStreamPage[]> {
  if (db.dialect !== "postgres") {
    return Promise.all(
      reads.map(async ({ scope, after, limit }) =>
        pageOf(
          db,
          (
            await db.all<EventRow>(sql`SELECT e.id, e.run_id, e.type, e.at, e.data FROM run_events e
              JOIN runs r ON r.id = e.run_id WHERE ${scopeOf(scope, sql`r`)} AND e.id > ${after.id}
              ORDER BY e.id LIMIT ${limit}`)
          ).map((row) => ({ ...row, tx: "0", settled: true })),
          limit,
        ),
      ),
    );
  }
  const rows = db.rowsOf(
    6,
    reads.map(({ scope, after, limit }, k) => [
      String(k),
      "sessionId" in scope ? scope.sessionId : null,
      "runId" in scope ? scope.runId : null,
      after.tx,
      String(after.id),
      String(limit),
    ]),
  );
  const found = await db.all<StreamRow>(
    sql`SELECT CAST(v.column1 AS int) AS k, e.id, e.run_id, e.type, e.at, e.data, e.tx::text AS tx,
        e.tx < pg_snapshot_xmin(pg_current_snapshot()) AS settled
      FROM ${rows} CROSS JOIN LATERAL (
        (SELECT e.* FROM run_events e
          WHERE v.column3 IS NOT NULL AND e.run_id = v.column3
            AND (e.tx, e.id) > (CAST(v.column4 AS xid8), CAST(v.column5 AS bigint))
          ORDER BY e.tx, e.id LIMIT CAST(v.column6 AS int))
        UNION ALL
        (SELECT e.* FROM runs r JOIN run_events e ON e.run_id = r.id
          WHERE v.column2 IS NOT NULL AND r.session_id = v.column2
            AND (e.tx, e.id) > (CAST(v.column4 AS xid8), CAST(v.column5 AS bigint))
          ORDER BY e.tx, e.id LIMIT CAST(v.column6 AS int))
      ) AS e
      ORDER BY k, e.tx, e.id`,
    "stream_events",
  );
  const byRead = reads.map((): StreamRow[] => []);
  for (const row of found) byRead[Number(row.k)]!.push(row);
  return byRead.map((rowsOfRead, k) => pageOf(db, rowsOfRead, reads[k]!.limit));
}

const STREAM_READS: BatchedOp<StreamRead, EventStreamPage> = {
  write: streamEventsBatch,
  maxBatch: 200,
  concurrency: 4,
};

function pageOf(db: OpContext["db"], rows: StreamRow[], limit: number): EventStreamPage {
  const events: RunEvent[] = [];
  let last: EventPosition | null = null;
  for (const row of rows) {
    // Settled rows sort before all unsettled ones: the settled ones are a prefix.
    if (!row.settled) break;
    events.push(decodeEvent(row, db));
    last = { tx: String(row.tx), id: Number(row.id) };
  }
  return { events, last, unsettled: events.length < rows.length, full: rows.length === limit };
}
