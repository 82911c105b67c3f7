import { OahError } from "@oah/core";
import { sql } from "drizzle-orm";
import { decodeRun, entryOf, type RunRow } from "../rows";
import { runColumns } from "../sql-fragments";
import type { OpContext } from "./context";
import type { CreatedRun } from "./create-runs";
import { insertEvent } from "./insert-events";
import { takePositions } from "./session-positions";

/** A run to make from another's checkpoint: its id, the run, and the step it goes on before. */
export interface NewFork {
  id: string;
  runId: string;
  fromStep: number;
}

/**
 * Runs again from a step (docs/spec.md §7): a new run at the tail of the same session, with the
 * source's submission (executor, input, workspace, priority, timeout, parent) and, as its own
 * checkpoints, the source's up to the last one written before `fromStep`: it goes on from there,
 * and does `fromStep` and what follows again. Queued with its `run.queued` event, in one transaction.
 */
export async function forkRun(ctx: OpContext, fork: NewFork): Promise<CreatedRun> {
  const now = ctx.now();
  const row = await ctx.db.transaction(async (tx) => {
    const [source] = await tx.all<RunRow>(sql`SELECT ${runColumns} FROM runs WHERE id = ${fork.runId}`);
    if (!source) throw new OahError("run_not_found", `no run with id ${fork.runId}`);
    const [step] = await tx.all<{ id: number }>(sql`SELECT id FROM run_steps
      WHERE id = ${fork.fromStep} AND run_id = ${fork.runId} AND kind <> 'system'`);
    if (!step) throw new OahError("step_not_found", `run ${fork.runId} has no step ${fork.fromStep}`);
    const [seq] = await takePositions(tx, [source.session_id], now);
    const [made] = await tx.all<RunRow>(sql`INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id,
        parent_run_id, priority, executor, input, status, created_at, enqueued_at, timeout_ms, attempt, metadata,
        idempotency_key, forked_from, forked_from_step, updated_at)
      SELECT ${fork.id}, session_id, ${seq}, ${seq}, workspace_id, parent_run_id, priority, executor, input,
        'queued', ${now}, ${now}, timeout_ms, 0, ${tx.json({})}, NULL, id, ${fork.fromStep}, ${now}
      FROM runs WHERE id = ${fork.runId}
      RETURNING ${runColumns}`);
    // The source's checkpoints up to the last one before the step, as the new run's: its log
    // whole, its last state. Attempt 0 marks them inherited; they keep the steps they cover (the
    // source's), so that what the new run does not do again is counted, and a fork of the new run
    // from its own first step inherits them in turn.
    await tx.run(sql`INSERT INTO run_checkpoints (run_id, step_id, attempt, at, state, appended)
      SELECT ${fork.id}, step_id, 0, at, state, appended FROM run_checkpoints
      WHERE run_id = ${fork.runId} AND id <= (SELECT max(id) FROM run_checkpoints
        WHERE run_id = ${fork.runId} AND step_id < ${fork.fromStep})
      ORDER BY id`);
    await insertEvent(tx, fork.id, "run.queued", now, {
      seq: made!.seq,
      priority: made!.priority,
      forkedFrom: { runId: fork.runId, stepId: fork.fromStep },
    });
    ctx.noteCountedWrite();
    return made!;
  });
  ctx.wrote([row.session_id]);
  return { run: decodeRun(row, ctx.db), created: true, queueEntry: entryOf(row), cancels: [], steered: null };
}
