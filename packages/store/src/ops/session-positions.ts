import { sql } from "drizzle-orm";
import type { SqlClient } from "../sql/client";

/**
 * Positions at the tail of their sessions for runs in order (one session id a run), from the
 * sessions' counters: one statement for all, each session's counter moved once. The sessions'
 * rows must exist; the move takes their row locks, so positions are never given twice.
 */
export async function takePositions(
  tx: SqlClient,
  sessionIds: readonly string[],
  now: number,
): Promise<number[]> {
  const perSession = new Map<string, number>();
  for (const id of sessionIds) perSession.set(id, (perSession.get(id) ?? 0) + 1);
  const counters = await tx.all<{ id: string; last_seq: number }>(sql`UPDATE sessions
    SET last_seq = last_seq + CAST(v.column2 AS integer), updated_at = ${now}
    FROM ${tx.rowsOf(
      2,
      [...perSession].map(([id, n]) => [id, String(n)]),
    )}
    WHERE sessions.id = v.column1 RETURNING sessions.id, sessions.last_seq`);
  const next = new Map(counters.map((c) => [c.id, Number(c.last_seq) - perSession.get(c.id)! + 1]));
  return sessionIds.map((id) => {
    const seq = next.get(id)!;
    next.set(id, seq + 1);
    return seq;
  });
}
