import { endExpiredParkedRuns } from "../tool-wait";
import type { MaintenancePlugin } from "./task";

/** How often parked runs are checked against their deadlines: a parked run ends about this late. */
export const PARKED_TIMEOUT_INTERVAL_MS = 1_000;

/**
 * Ends the parked runs past their deadline `timed_out` (docs/spec.md §6; see tool-wait.ts). Runs
 * on every worker host, whether or not it shares its queue, since a parked run waits however
 * long its client takes.
 */
export const parkedTimeouts: MaintenancePlugin = ({ host }) => ({
  name: "parked-timeouts",
  intervalMs: PARKED_TIMEOUT_INTERVAL_MS,
  async run() {
    const ended = await endExpiredParkedRuns(host.store, host.queue);
    if (ended > 0) host.logger.info({ runs: ended }, "parked runs past their deadline ended timed_out");
  },
});
