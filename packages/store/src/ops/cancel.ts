import { sql } from "drizzle-orm";
import { decodeRun, type RunRow } from "../rows";
import type { CancelRequest } from "../run-store";
import { fromStatuses, runColumns, toStatus } from "../sql-fragments";
import type { OpContext } from "./context";
import { insertEvent } from "./insert-events";

/**
 * A queued or parked run is cancelled at once; an executing one is asked to stop (its execution
 * ends it).
 */
export async function requestCancel(ctx: OpContext, runId: string): Promise<CancelRequest> {
  const { db } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const [row] = await tx.all<RunRow>(
      sql`SELECT ${runColumns} FROM runs WHERE id = ${runId} ${tx.forUpdate}`,
    );
    if (!row) return { kind: "missing" } as const;
    if (row.status === "queued") {
      const [cancelled] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("cancelQueued")}, cancel_requested_at = ${now},
          ended_at = ${now}, updated_at = ${now}
        WHERE id = ${runId} AND status IN (${fromStatuses("cancelQueued")}) RETURNING ${runColumns}`);
      await insertEvent(tx, runId, "run.cancelled", now, { while: "queued" });
      return { kind: "cancelled", run: decodeRun(cancelled!, db), parked: false } as const;
    }
    if (row.parked_at !== null) {
      // Nobody executes a parked run: it ends here.
      const [cancelled] =
        await tx.all<RunRow>(sql`UPDATE runs SET status = ${toStatus("cancelParked")}, cancel_requested_at = ${now},
          ended_at = ${now}, parked_at = NULL, parked_state = NULL, waiting_tool = NULL, tool_result = NULL,
          updated_at = ${now}
        WHERE id = ${runId} AND status IN (${fromStatuses("cancelParked")}) RETURNING ${runColumns}`);
      await insertEvent(tx, runId, "run.cancelled", now, { while: "parked" });
      return { kind: "cancelled", run: decodeRun(cancelled!, db), parked: true } as const;
    }
    if (row.status === "running" || row.status === "waiting_tool") {
      const [requested] = await tx.all<RunRow>(sql`UPDATE runs
        SET cancel_requested_at = COALESCE(cancel_requested_at, ${now}), updated_at = ${now}
        WHERE id = ${runId} RETURNING ${runColumns}`);
      return { kind: "requested", run: decodeRun(requested!, db) } as const;
    }
    return { kind: "terminal", run: decodeRun(row, db) } as const;
  });
}
