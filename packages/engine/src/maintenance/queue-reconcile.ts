import { enqueueLost, findLongAwaiting, sessionsOf } from "../jams/lost-runs";
import { type MaintenancePlugin, sharedScanInterval } from "./task";

/** Empty ready entries dropped per pass. */
const SURVEY_LIMIT = 1_000;

/**
 * Reconciles the queue with the store, the source of truth: runs the store says await a
 * slot (queued, or parked with their tool result) that the queue has lost (waiting longer
 * than a claim can take to start, and in no claim's hands) are enqueued again at their
 * place; the sessions of such runs that the queue holds but nothing could claim (not
 * locked, not ready) are made ready; ready entries of sessions with nothing to claim are
 * dropped; entries whose run awaits no slot are dropped. The repairs of the `lost_run`,
 * `lost_wake` and `stale_ready` jams (docs/spec.md §7) do the same on demand.
 */
export const queueReconcile: MaintenancePlugin = ({ host, settings }) => ({
  name: "queue-reconcile",
  intervalMs: sharedScanInterval(settings),
  async run() {
    const { store, queue, logger, clock } = host;
    const { lost, held } = await findLongAwaiting(store, queue, clock.now() - settings.staleAfterMs, 1_000);
    const again = await enqueueLost(store, queue, lost);
    if (again.length > 0) {
      logger.warn({ runs: again.length }, "queued runs missing from the queue were enqueued again");
    }
    const stranded = await queue.readyStranded(sessionsOf(held));
    if (stranded.length > 0) {
      logger.warn(
        { sessions: stranded.length },
        "sessions with queued runs but no way to be claimed were made ready",
      );
    }
    const emptied = await queue.dropEmptyReady((await queue.survey(SURVEY_LIMIT)).emptyReady);
    if (emptied.length > 0) {
      logger.warn({ sessions: emptied.length }, "ready entries of sessions with no runs dropped");
    }
    if ((await queue.size()) <= (await store.countAwaitingSlot())) return;
    let dropped = 0;
    for await (const batch of queue.entries()) {
      const current = await store.awaitingSlot(batch.map((e) => e.runId));
      for (const entry of batch) {
        if (current.has(entry.runId)) continue;
        if (await queue.remove(entry.sessionId, entry.runId)) dropped++;
      }
    }
    if (dropped > 0) logger.warn({ entries: dropped }, "queue entries of finished or unknown runs dropped");
  },
});
