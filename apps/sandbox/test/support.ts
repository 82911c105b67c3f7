import { type SplitDeployment, waitFor } from "@oah/testing";
import { expect } from "vitest";

/** Short lock, heartbeat, staleness and scan periods, so that recovery happens within seconds. */
export const FAST_RECOVERY = {
  OAH_SESSION_LOCK_TTL_MS: "1500",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
  OAH_STALE_RUN_AFTER_MS: "2000",
  OAH_RECOVERY_SCAN_INTERVAL_MS: "300",
};

interface Row {
  session_id: string;
  seq: number;
  status: string;
  attempt: number;
  started_at: number;
  ended_at: number;
  terminal_events: number;
}

/** Every run completed once, and each session ran serially in submission order. */
export async function expectAllCompletedInOrder(d: SplitDeployment, expected: number) {
  const { rows } = await d.db.query<Row>(`
    SELECT r.session_id, r.seq, r.status, r.attempt, r.started_at, r.ended_at,
      (SELECT count(*) FROM run_events e WHERE e.run_id = r.id
        AND e.type IN ('run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'))::int AS terminal_events
    FROM runs r ORDER BY r.session_id, r.seq`);
  expect(rows).toHaveLength(expected);
  expect(rows.filter((r) => r.status !== "completed" || r.terminal_events !== 1)).toEqual([]);
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1]!, rows[i]!];
    if (a.session_id === b.session_id)
      expect(Number(b.started_at)).toBeGreaterThanOrEqual(Number(a.ended_at));
  }
  return rows;
}

/** Waits until at least `n` runs (of `sessionId`, when given) have completed. */
export function waitForCompleted(d: SplitDeployment, n: number, sessionId?: string): Promise<true> {
  return waitFor(
    `${n} runs${sessionId ? ` of ${sessionId}` : ""} to complete`,
    async () => {
      const { rows } = await d.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE status = 'completed' AND ($1::text IS NULL OR session_id = $1)",
        [sessionId ?? null],
      );
      return rows[0]!.n >= n || undefined;
    },
    30_000,
    20,
  );
}
