import type { RunEvent } from "@oah/contract";
import type { RunEventType } from "@oah/core";
import { type SQL, sql } from "drizzle-orm";
import { decodeEvent, type EventRow } from "../rows";
import type { EventPosition, EventScope, EventStreamPage, ResumePoint } from "../run-store";
import type { OpContext } from "./context";

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

/**
 * The events of a stream after a position, in the order their transactions committed,
 * so that a reader that keeps only its last position misses none.
 *
 * SQLite commits one write at a time, in id order. PostgreSQL hands ids out when rows are
 * written, not when they commit: an event with a lower id can become visible after one
 * with a higher id. Its events are ordered by their writer's transaction id instead, and
 * only those of transactions older than every one still in progress are given out
 * ("settled"): whatever commits later sorts after them. Committed events not yet settled
 * are left for the next read, which `unsettled` asks for soon.
 */
export async function streamEvents(
  { db }: OpContext,
  scope: EventScope,
  after: EventPosition,
  limit: number,
): Promise<EventStreamPage> {
  const rows =
    db.dialect === "postgres"
      ? await db.all<EventRow & { tx: string; settled: boolean }>(sql`SELECT e.id, e.run_id, e.type, e.at,
          e.data, e.tx::text AS tx, e.tx < pg_snapshot_xmin(pg_current_snapshot()) AS settled
        FROM run_events e JOIN runs r ON r.id = e.run_id
        WHERE ${scopeOf(scope, sql`r`)} AND (e.tx, e.id) > (CAST(${after.tx} AS xid8), ${after.id})
        ORDER BY e.tx, e.id LIMIT ${limit}`)
      : (
          await db.all<EventRow>(sql`SELECT e.id, e.run_id, e.type, e.at, e.data FROM run_events e
            JOIN runs r ON r.id = e.run_id WHERE ${scopeOf(scope, sql`r`)} AND e.id > ${after.id}
            ORDER BY e.id LIMIT ${limit}`)
        ).map((row) => ({ ...row, tx: "0", settled: true }));
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
