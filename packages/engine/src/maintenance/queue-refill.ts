import { type MaintenancePlugin, sharedScanInterval } from "./task";

const PAGE = 1_000;

/**
 * When the queue's state is gone (a fresh in-process queue, Redis flushed or restarted),
 * puts every run of the store that awaits a slot into it (queued, or parked with its tool
 * result), in queue order: nothing submitted or answered is lost by a restart. Enqueueing is idempotent per run, and the store refuses to start a run
 * twice, so a run already in hand elsewhere is safe.
 */
export const queueRefill: MaintenancePlugin = ({ host, settings }) => ({
  name: "queue-refill",
  intervalMs: sharedScanInterval(settings),
  async run() {
    const { store, queue, logger } = host;
    if (!(await queue.markLive())) return;
    let after: { sessionId: string; queueSeq: number } | undefined;
    let count = 0;
    for (;;) {
      const page = await store.listAwaitingSlot({ after, limit: PAGE });
      if (page.length === 0) break;
      await queue.enqueue(page);
      count += page.length;
      const last = page[page.length - 1]!;
      after = { sessionId: last.sessionId, queueSeq: last.queueSeq };
    }
    if (count > 0) logger.info({ runs: count }, "runs awaiting a slot put into the queue");
  },
});
