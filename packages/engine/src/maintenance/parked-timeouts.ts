import { parkedRunEnded } from "../parked-runs";
import type { MaintenancePlugin } from "./task";

/** How often parked runs are checked against their deadlines: a parked run ends about this late. */
export const PARKED_TIMEOUT_INTERVAL_MS = 1_000;
const BATCH = 500;

/**
 * Ends the parked runs past their deadline (startedAt + timeoutMs) `timed_out` (docs/spec.md §6):
 * no execution holds them, so no execution's timer can. Runs on every worker host, whether or
 * not it shares its queue, since a parked run waits however long its client takes.
 */
export const parkedTimeouts: MaintenancePlugin = ({ host }) => ({
  name: "parked-timeouts",
  intervalMs: PARKED_TIMEOUT_INTERVAL_MS,
  async run() {
    const { store, queue, logger } = host;
    let ended = 0;
    for (;;) {
      const expired = await store.expireParkedRuns(BATCH);
      await parkedRunEnded(queue, expired);
      ended += expired.length;
      if (expired.length < BATCH) break;
    }
    if (ended > 0) logger.info({ runs: ended }, "parked runs past their deadline ended timed_out");
  },
});
