import type { Run } from "@oah/contract";
import type { SessionQueue } from "@oah/coordination";

/**
 * A parked run ended where it waited, outside any execution (cancelled, or past its deadline):
 * its resume entry, if its result had arrived, leaves the queue, and its session, whose later
 * runs waited for it out of the ready set, goes on with them.
 */
export async function parkedRunEnded(queue: SessionQueue, runs: readonly Pick<Run, "id" | "sessionId">[]) {
  for (const run of runs) await queue.remove(run.sessionId, run.id);
  if (runs.length > 0)
    await queue.readyStranded([...new Set(runs.map((r) => r.sessionId))], { blockerEnded: true });
}
