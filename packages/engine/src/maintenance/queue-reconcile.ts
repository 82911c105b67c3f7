import { type MaintenancePlugin, sharedScanInterval } from "./task";

/**
 * Reconciles the queue with the store, the source of truth: runs the store says await a
 * slot (queued, or parked with their tool result) that the queue has lost (waiting longer
 * than a claim can take to start, and in no claim's hands) are enqueued again at their
 * place; the sessions of such runs that the queue holds but nothing could claim (not
 * locked, not ready) are made ready; entries whose run awaits no slot are dropped.
 */
export const queueReconcile: MaintenancePlugin = ({ host, settings }) => ({
  name: "queue-reconcile",
  intervalMs: sharedScanInterval(settings),
  async run() {
    const { store, queue, logger } = host;
    const long = await store.listAwaitingSlot({
      enqueuedBefore: Date.now() - settings.staleAfterMs,
      limit: 1_000,
    });
    const lostIds = new Set(await queue.lost(long));
    // Read again after the queue: a run that started and ended between the two reads is not lost.
    const still = lostIds.size > 0 ? await store.awaitingSlot([...lostIds]) : new Set<string>();
    const lost = long.filter((e) => lostIds.has(e.runId) && still.has(e.runId));
    if (lost.length > 0) {
      await queue.enqueue(lost);
      logger.warn({ runs: lost.length }, "queued runs missing from the queue were enqueued again");
    }
    const waiting = new Set(long.filter((e) => !lostIds.has(e.runId)).map((e) => e.sessionId));
    const stranded = await queue.readyStranded([...waiting]);
    if (stranded.length > 0) {
      logger.warn(
        { sessions: stranded.length },
        "sessions with queued runs but no way to be claimed were made ready",
      );
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
