import type { Run, RunEvent, RunStep } from "@oah/contract";
import type { RunStatus } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeEvent, decodeRun, decodeStep, type EventRow, type RunRow, type StepRow } from "../rows";
import { ACTIVE, runColumns, UNFINISHED } from "../sql-fragments";
import type { OpContext } from "./context";

interface Page {
  after?: number;
  limit: number;
}

export async function getRun({ db }: OpContext, runId: string): Promise<Run | null> {
  const [row] = await db.all<RunRow>(sql`SELECT ${runColumns} FROM runs WHERE id = ${runId}`);
  return row ? decodeRun(row, db) : null;
}

export async function listSessionRuns({ db }: OpContext, sessionId: string, page: Page): Promise<Run[]> {
  const rows = await db.all<RunRow>(sql`SELECT ${runColumns} FROM runs
    WHERE session_id = ${sessionId} AND seq > ${page.after ?? 0} ORDER BY seq LIMIT ${page.limit}`);
  return rows.map((r) => decodeRun(r, db));
}

export async function listRunEvents({ db }: OpContext, runId: string, page: Page): Promise<RunEvent[]> {
  const rows = await db.all<EventRow>(sql`SELECT id, run_id, type, at, data FROM run_events
    WHERE run_id = ${runId} AND id > ${page.after ?? 0} ORDER BY id LIMIT ${page.limit}`);
  return rows.map((r) => decodeEvent(r, db));
}

export async function listRunSteps({ db }: OpContext, runId: string): Promise<RunStep[]> {
  const rows = await db.all<StepRow>(sql`SELECT id, run_id, kind, name, status, started_at, ended_at, output,
    error_code, error_message FROM run_steps WHERE run_id = ${runId} ORDER BY id`);
  return rows.map((r) => decodeStep(r, db));
}

/** The statuses of these runs (absent: unknown). */
export async function statusesOf(
  { db }: OpContext,
  runIds: readonly string[],
): Promise<Map<string, RunStatus>> {
  if (runIds.length === 0) return new Map();
  const ids = sql.join(
    runIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await db.all<{ id: string; status: RunStatus }>(sql`SELECT id, status FROM runs
    WHERE id IN (${ids})`);
  return new Map(rows.map((r) => [r.id, r.status]));
}

/**
 * The executions holding these session locks: the active run of each session whose claim token
 * is the lock's, by token (absent: no run executes under it). Read by session, through its index.
 */
export async function claimHolders(
  { db }: OpContext,
  locks: readonly { sessionId: string; token: string }[],
): Promise<Map<string, Run>> {
  if (locks.length === 0) return new Map();
  const sessions = sql.join(
    [...new Set(locks.map((l) => l.sessionId))].map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await db.all<RunRow>(sql`SELECT ${runColumns} FROM runs
    WHERE session_id IN (${sessions}) AND claim_token IS NOT NULL AND status IN (${ACTIVE})`);
  const wanted = new Set(locks.map((l) => `${l.sessionId} ${l.token}`));
  return new Map(
    rows
      .filter((r) => wanted.has(`${r.session_id} ${r.claim_token}`))
      .map((r) => [r.claim_token!, decodeRun(r, db)]),
  );
}

/**
 * Those of these runs that an earlier unfinished run of their session holds back (the store's
 * start guard): their session waits for that run to end, not for a wake.
 */
export async function behindUnfinished({ db }: OpContext, runIds: readonly string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const ids = sql.join(
    runIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await db.all<{ id: string }>(sql`SELECT later.id FROM runs AS later
    WHERE later.id IN (${ids}) AND EXISTS (SELECT 1 FROM runs AS earlier WHERE earlier.session_id = later.session_id
      AND earlier.queue_seq < later.queue_seq AND earlier.status IN (${UNFINISHED}))`);
  return new Set(rows.map((r) => r.id));
}
