import type { SessionClaim } from "@oah/queue";
import type { StartResult } from "@oah/store";
import { sleep } from "../abort";
import type { HostContext } from "../host";
import { executeRun } from "./execute-run";

export type WorkerState = "starting" | "idle" | "busy" | "stopping";

const STORE_BACKOFF_MS = 1_000;

/**
 * One execution slot: claims a session, executes its head run, releases the
 * session, and again, until told to stop claiming.
 */
export class Worker {
  state: WorkerState = "starting";
  current: { sessionId: string; runId: string } | null = null;
  private readonly stopClaiming = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    readonly id: string,
    private readonly host: HostContext,
    /** Told the queue wait of each run this worker starts. */
    private readonly onStarted: (queueWaitMs: number) => void = () => {},
  ) {}

  get stopRequested(): boolean {
    return this.stopClaiming.signal.aborted;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops claiming; resolves once the run in hand (if any) has ended. */
  stop(): Promise<void> {
    this.stopClaiming.abort();
    if (this.state !== "busy") this.state = "stopping";
    return this.loop ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    const signal = this.stopClaiming.signal;
    const { queue, logger } = this.host;
    while (!signal.aborted) {
      this.state = "idle";
      let claim: SessionClaim | null;
      try {
        claim = await queue.claim();
      } catch (error) {
        logger.warn({ err: error, workerId: this.id }, "claim failed; pausing");
        await sleep(STORE_BACKOFF_MS, signal);
        continue;
      }
      if (!claim) {
        await queue.waitForWork(signal);
        continue;
      }
      this.state = "busy";
      this.current = { sessionId: claim.sessionId, runId: claim.entry.runId };
      try {
        await this.process(claim);
      } finally {
        this.current = null;
      }
    }
    this.state = "stopping";
  }

  private async process(claim: SessionClaim): Promise<void> {
    const { store, queue, logger } = this.host;
    const { sessionId, token, entry } = claim;
    let start: StartResult;
    try {
      start = await store.startRun({ runId: entry.runId, token }, this.id);
    } catch (error) {
      // The store is unreachable: keep the run where it was and pause before claiming again.
      logger.warn({ err: error, runId: entry.runId }, "could not start a run; putting it back");
      await sleep(STORE_BACKOFF_MS);
      await queue.release(sessionId, token, { putBack: entry });
      return;
    }
    if (start.kind === "blocked") {
      // An earlier run of the session is unfinished: wait for it instead of overtaking it.
      await queue.release(sessionId, token, { putBack: entry, ready: false });
      return;
    }
    if (start.kind !== "started") {
      await queue.release(sessionId, token);
      return;
    }
    const queueWaitMs = Date.now() - entry.enqueuedAt;
    this.onStarted(queueWaitMs);
    this.host.observers.runStarted?.({ run: start.run, queueWaitMs });
    // The slot is free once the executor is done; the terminal write and the release of the
    // session (which must follow it) settle in the background, in the same group commit as
    // the next runs' starts, while this worker claims its next session.
    let executed!: () => void;
    const done = new Promise<void>((resolve) => {
      executed = resolve;
    });
    this.host.settling.track(
      executeRun(this.host, start.run, { runId: entry.runId, token }, executed).finally(() =>
        queue
          .release(sessionId, token)
          .catch((error: unknown) =>
            logger.warn({ err: error, sessionId }, "could not release a session; its lock will expire"),
          ),
      ),
    );
    await done;
  }
}
