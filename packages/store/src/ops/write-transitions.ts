import type { RunSummary } from "@oah/contract";
import type { RunStatus } from "@oah/core";
import { decodeRun, decodeRunSummary, type RunRow } from "../rows";
import type { StartResult } from "../run-store";
import { refusedStart } from "../run-writes";
import {
  endEvent,
  type FinishTransition,
  finishStatement,
  type StartTransition,
  startData,
  startStatement,
  TRANSITION_STATEMENT,
  type Transition,
  transitionStatement,
} from "../transitions";
import type { OpContext } from "./context";
import { insertEvents } from "./insert-events";
import { statusesOf } from "./reads";

/**
 * Starts and ends of runs, written together (the batch of a group commit), so that a
 * busy host pays one commit for many transitions, each with its event.
 */
export async function writeTransitions(
  ctx: OpContext,
  batch: Transition[],
): Promise<(StartResult | RunSummary | null)[]> {
  const { db } = ctx;
  const now = ctx.now();
  const finishes = batch.filter((t): t is FinishTransition => t.kind === "finish");
  const starts = batch.filter((t): t is StartTransition => t.kind === "start");
  const rows =
    db.dialect === "postgres"
      ? await db.all<RunRow & { op: "start" | "finish" }>(
          transitionStatement(db, finishes, starts, now),
          TRANSITION_STATEMENT,
        )
      : await db.transaction(async (tx) => {
          const ended =
            finishes.length > 0
              ? await tx.all<Omit<RunRow, "input" | "output">>(finishStatement(tx, finishes, now))
              : [];
          const started = starts.length > 0 ? await tx.all<RunRow>(startStatement(tx, starts, now)) : [];
          const events = [
            ...ended.map((r) => endEvent(r)),
            ...started.map((r) => ({ runId: r.id, type: "run.started" as const, data: startData(r) })),
          ];
          if (events.length > 0) await insertEvents(tx, events, now);
          return [
            ...ended.map((r) => ({ ...r, op: "finish" as const })),
            ...started.map((r) => ({ ...r, op: "start" as const })),
          ];
        });
  ctx.noteCountedWrite();
  const ended = new Map(rows.filter((r) => r.op === "finish").map((r) => [r.id, r]));
  const started = new Map(rows.filter((r) => r.op === "start").map((r) => [r.id, r]));
  // A start refused: blocked behind an earlier unfinished run, or gone (cancelled, finished, unknown).
  const missed = starts.filter((t) => !started.has(t.claim.runId)).map((t) => t.claim.runId);
  const statuses = missed.length > 0 ? await statusesOf(ctx, missed) : new Map<string, RunStatus>();
  return batch.map((t) => {
    if (t.kind === "finish") {
      const row = ended.get(t.claim.runId);
      return row ? decodeRunSummary(row, db) : null;
    }
    const row = started.get(t.claim.runId);
    if (row) return { kind: "started", run: decodeRun(row, db) } satisfies StartResult;
    return refusedStart(statuses.get(t.claim.runId) ?? null);
  });
}
