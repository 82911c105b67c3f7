import type { HostContext } from "./host";

/**
 * One tick per interval for the whole host: a single batched, fenced heartbeat
 * write for all active runs, the renewal of their session locks, and the
 * fallback check for cancels whose notification was missed.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly host: HostContext,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  async tick(): Promise<void> {
    const { store, queue, active, logger } = this.host;
    const runs = active.list();
    if (runs.length === 0) return;
    try {
      const result = await store.heartbeat(runs.map((r) => r.claim));
      for (const runId of result.fenced) active.abort(runId, { kind: "fenced" });
      for (const runId of result.cancelRequested) active.abort(runId, { kind: "cancel" });
    } catch (error) {
      logger.warn({ err: error, runs: runs.length }, "heartbeat write failed");
    }
    await Promise.all(
      runs.map(async (r) => {
        try {
          if (!(await queue.renew(r.sessionId, r.claim.token)))
            active.abort(r.claim.runId, { kind: "fenced" });
        } catch (error) {
          logger.warn({ err: error, sessionId: r.sessionId }, "session lock renewal failed");
        }
      }),
    );
  }
}
