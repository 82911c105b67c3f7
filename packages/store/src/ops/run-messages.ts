import type { Run } from "@oah/contract";
import { isTerminal, OahError, type RunStatus } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, type RunRow } from "../rows";
import type { SqlClient } from "../sql/client";
import { runColumns } from "../sql-fragments";
import type { OpContext } from "./context";

/** A message to a running agent (docs/spec.md §5, *Steering*): its event's id is its place. */
export interface RunMessage {
  id: number;
  content: string;
}

/**
 * Writes a message as the run's `run.message` event, in the caller's transaction, which holds
 * the run's row lock (or the session's, whose runs it read so): its id orders it among the
 * run's messages.
 */
export async function insertMessage(
  tx: SqlClient,
  runId: string,
  content: string,
  at: number,
): Promise<number> {
  const [row] = await tx.all<{ id: number | string }>(
    sql`INSERT INTO run_events (run_id, type, at, data)
      VALUES (${runId}, 'run.message', CAST(${at} AS BIGINT), ${tx.json({ content })}) RETURNING id`,
  );
  return Number(row!.id);
}

/**
 * A message to a run (`POST /api/v1/runs/{runId}/messages`), decided under the run's row lock:
 * written while the run is unfinished; refused with `run_already_ended` once it has ended, with
 * `run_not_steerable` for a run whose executor takes none (a script), `run_not_found` for none.
 */
export async function postMessage(
  ctx: OpContext,
  runId: string,
  content: string,
): Promise<{ run: Run; messageId: number }> {
  const { db } = ctx;
  const now = ctx.now();
  const posted = await db.transaction(async (tx) => {
    const [row] = await tx.all<RunRow>(
      sql`SELECT ${runColumns} FROM runs WHERE id = ${runId} ${tx.forUpdate}`,
    );
    if (!row) throw new OahError("run_not_found", `no run with id ${runId}`);
    if (row.executor !== "agent")
      throw new OahError(
        "run_not_steerable",
        `${runId} is a ${row.executor} run: only an agent run takes messages`,
      );
    // A run takes messages until it ends, parked included.
    if (isTerminal(row.status as RunStatus))
      throw new OahError(
        "run_already_ended",
        `${runId} has ended (${row.status}): it takes no more messages`,
        {
          runId,
          status: row.status,
        },
      );
    const messageId = await insertMessage(tx, runId, content, now);
    return { run: decodeRun(row, tx), messageId };
  });
  ctx.wrote([posted.run.sessionId]);
  return posted;
}

/** The run's messages after the one with id `after` (0: all), in their order: what its agent has not taken yet. */
export async function pendingMessages(
  { db }: OpContext,
  runId: string,
  after: number,
): Promise<RunMessage[]> {
  const rows = await db.all<{ id: number | string; data: unknown }>(
    sql`SELECT id, data FROM run_events WHERE run_id = ${runId} AND id > ${after} AND type = 'run.message'
      ORDER BY id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    content: (db.decodeJson(r.data) as { content: string }).content,
  }));
}
