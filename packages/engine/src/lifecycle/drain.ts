import type { HostContext } from "../host-context";
import type { ElasticPool } from "../pool/elastic-pool";
import { type RecoveryOptions, recoverRun } from "../recovery/recover-stale-runs";

export type DrainHost = Pick<HostContext, "active" | "store" | "logger">;

/**
 * Stops claiming and lets the runs in hand finish for up to `timeoutMs`; then aborts
 * the rest and hands them to recovery by the configured strategy at once (SPEC §7),
 * instead of leaving them to go stale.
 */
export async function drainPool(
  pool: ElasticPool,
  host: DrainHost,
  timeoutMs: number,
  recovery: Omit<RecoveryOptions, "lastSeenBefore">,
): Promise<void> {
  if (await pool.drain(timeoutMs)) return;
  const { active, store, logger } = host;
  const leftover = active.list();
  for (const run of leftover) run.controller.abort({ kind: "shutdown" });
  await pool.stopped();
  const options = { ...recovery, lastSeenBefore: Number.MAX_SAFE_INTEGER };
  for (const { claim } of leftover) {
    const run = await store.getRun(claim.runId);
    if (run) {
      await recoverRun(run, options).catch((err) =>
        logger.error({ err, runId: run.id }, "drain recovery failed"),
      );
    }
  }
  logger.warn({ runs: leftover.length }, "drain timed out; unfinished runs handed to recovery");
}
