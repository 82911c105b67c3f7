import type { RecoveryStore, RunReads } from "@oah/store";
import type { HostContext } from "../host-context";
import type { ElasticPool } from "../pool/elastic-pool";
import { type RecoveryOptions, recoverRun } from "../recovery/recover-stale-runs";

export type DrainHost = Pick<HostContext, "active" | "logger"> & {
  store: RecoveryStore & Pick<RunReads, "getRun">;
};

/**
 * Lets the runs in hand of a pool that claims no more finish for up to `timeoutMs`; then,
 * unless `stillWanted` says the drain was called off, aborts the rest and hands them to
 * recovery by the configured strategy at once (docs/spec.md §7), instead of leaving them to go stale.
 * Resolves true when the pool ended empty.
 */
export async function emptyPool(
  pool: ElasticPool,
  host: DrainHost,
  timeoutMs: number,
  recovery: Omit<RecoveryOptions, "lastSeenBefore">,
  stillWanted: () => boolean = () => true,
): Promise<boolean> {
  if (await pool.idle(timeoutMs)) return true;
  if (!stillWanted()) return false;
  const { active, store, logger } = host;
  const leftover = active.list();
  for (const run of leftover) run.controller.abort({ kind: "shutdown" });
  await pool.idle();
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
  return true;
}

/** The drain of a host that stops: no more sizing or claiming, then emptyPool. */
export async function drainPool(
  pool: ElasticPool,
  host: DrainHost,
  timeoutMs: number,
  recovery: Omit<RecoveryOptions, "lastSeenBefore">,
): Promise<void> {
  await pool.shutdown();
  await emptyPool(pool, host, timeoutMs, recovery);
}
