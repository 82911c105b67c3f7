import { recoverStaleRuns } from "../recovery/recover-stale-runs";
import { type MaintenancePlugin, sharedScanInterval } from "./task";

/**
 * Recovers the runs whose execution went silent (docs/spec.md §7) by the configured strategy,
 * except those whose host's live lease still lists them.
 */
export const staleRunScan: MaintenancePlugin = ({ host, settings }) => ({
  name: "stale-runs",
  intervalMs: sharedScanInterval(settings),
  async run({ atStart }) {
    const { store, queue, logger, leases, hostId, clock } = host;
    const summary = await recoverStaleRuns({
      store,
      queue,
      logger,
      leases,
      policy: settings,
      by: hostId,
      lastSeenBefore:
        atStart && settings.exclusiveOwner ? Number.MAX_SAFE_INTEGER : clock.now() - settings.staleAfterMs,
    });
    if (summary.requeued + summary.failed + summary.quarantined + summary.cancelled > 0) {
      logger.warn({ ...summary, strategy: settings.strategy }, "stale runs recovered");
    }
    if (summary.held > 0) {
      logger.warn(
        { runs: summary.held },
        "stale runs left alone: the hosts executing them still renew their leases",
      );
    }
  },
});
