import type { ExecutionStore } from "@oah/store";
import type { HostContext } from "./host-context";
import { PeriodicTask } from "./periodic-task";

/** What the heartbeat uses of its host: the runs in hand, where it writes, and its lease. */
export type HeartbeatHost = Pick<
  HostContext,
  "hostId" | "clock" | "queue" | "active" | "heldWaits" | "logger" | "leases" | "leaseTtlMs" | "liveness"
> & { store: Pick<ExecutionStore, "heartbeat"> };

/**
 * One tick per interval for the whole host: the renewal of its lease (the runs it
 * executes, by which other hosts know they are alive), a single batched, fenced
 * heartbeat write for all active runs, the renewal of their session locks, and the
 * fallback check for cancels whose notification was missed.
 */
export class Heartbeat {
  private readonly ticks: PeriodicTask;

  constructor(
    private readonly host: HeartbeatHost,
    intervalMs: number,
    /** A host that executes runs (has a pool) keeps a lease; one that serves the API alone does not. */
    private readonly keepsLease: boolean,
  ) {
    this.ticks = new PeriodicTask(() => this.tick(), intervalMs, host.clock);
  }

  start(): void {
    this.ticks.start();
  }

  stop(): Promise<void> {
    return this.ticks.stop();
  }

  async tick(): Promise<void> {
    const { store, queue, active, heldWaits, logger } = this.host;
    // A host that could not prove its liveness in time has lost its runs' steps: it stops them first.
    this.host.liveness?.check();
    const runs = active.list();
    if (this.keepsLease) await this.renewLease(runs.map((r) => r.claim.runId));
    if (runs.length === 0) return;
    try {
      const result = await store.heartbeat(runs.map((r) => r.claim));
      for (const runId of result.fenced) active.abort(runId, { kind: "fenced" });
      for (const runId of result.cancelRequested) active.abort(runId, { kind: "cancel" });
      for (const runId of result.interruptRequested) active.interrupt(runId);
      for (const runId of result.toolResultReady) heldWaits.wake(runId);
    } catch (error) {
      logger.warn({ err: error, runs: runs.length }, "heartbeat write failed");
    }
    try {
      const locks = runs.map((r) => ({
        sessionId: r.sessionId,
        token: r.claim.token,
        workspaceId: r.workspaceId,
      }));
      const lost = new Set(await queue.renewLocks(locks));
      for (const r of runs) if (lost.has(r.sessionId)) active.abort(r.claim.runId, { kind: "fenced" });
    } catch (error) {
      logger.warn({ err: error, runs: runs.length }, "session lock renewal failed");
    }
  }

  private async renewLease(runIds: string[]): Promise<void> {
    const { leases, liveness, hostId, leaseTtlMs, logger, clock } = this.host;
    const sentAt = clock.now();
    try {
      await leases.renew(hostId, runIds, leaseTtlMs);
      liveness?.renewed(sentAt);
    } catch (error) {
      logger.warn({ err: error, runs: runIds.length }, "host lease renewal failed");
    }
  }
}
