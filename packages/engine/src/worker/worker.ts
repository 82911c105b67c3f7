import type { WorkerState } from "@oah/contract";
import type { SessionClaim } from "@oah/coordination";
import { shouldClaimAhead } from "@oah/core";
import type { StartResult } from "@oah/store";
import { sleep } from "../clock";
import type { HostContext } from "../host-context";
import { type ExecutionHost, executeRun } from "./execute-run";
import { HeldClaim, type HeldClaimHost } from "./held-claim";

/** What a slot uses of its host: its claims, its runs' executions, and the claim-ahead policy. */
export type WorkerHost = ExecutionHost & HeldClaimHost & Pick<HostContext, "claimAhead">;

const STORE_BACKOFF_MS = 1_000;

/**
 * One execution slot: claims a session, executes its head run, releases the
 * session, and again, until told to stop claiming. When its runs are very short,
 * it claims its next session while the run in hand starts (see ClaimAheadPolicy).
 */
export class Worker {
  state: WorkerState = "starting";
  current: { sessionId: string; runId: string } | null = null;
  private readonly stopClaiming = new AbortController();
  private loop: Promise<void> | undefined;
  private held: HeldClaim | null = null;
  /** Execution times of the last runs, for the claim-ahead policy. */
  private readonly recentRunMs: number[] = [];

  constructor(
    readonly id: string,
    private readonly host: WorkerHost,
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
    return this.ended();
  }

  /** Resolves once the loop has ended (after stop). */
  ended(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    const signal = this.stopClaiming.signal;
    const { queue, logger, clock } = this.host;
    let waited = true;
    while (!signal.aborted) {
      this.state = "idle";
      let claim: SessionClaim | null;
      try {
        claim = await this.takeHeld();
        claim ??= await queue.claim();
      } catch (error) {
        logger.warn({ err: error, workerId: this.id }, "claim failed; pausing");
        await sleep(clock, STORE_BACKOFF_MS, signal);
        continue;
      }
      if (!claim) {
        waited = true;
        await queue.waitForWork(signal);
        continue;
      }
      this.state = "busy";
      this.current = { sessionId: claim.sessionId, runId: claim.entry.runId };
      try {
        await this.process(claim, !waited);
      } finally {
        this.current = null;
      }
      waited = false;
    }
    this.state = "stopping";
    await this.held?.putBack();
    this.held = null;
  }

  private takeHeld(): Promise<SessionClaim | null> {
    const held = this.held;
    this.held = null;
    return held ? held.take() : Promise.resolve(null);
  }

  private claimAhead(foundWithoutWaiting: boolean): void {
    const policy = this.host.claimAhead;
    const signals = { recentRunMs: this.recentRunMs, foundWithoutWaiting, stopping: this.stopRequested };
    if (this.held === null && shouldClaimAhead(signals, policy))
      this.held = new HeldClaim(this.host, policy.holdMs);
  }

  private recordRunMs(ms: number): void {
    this.recentRunMs.push(ms);
    if (this.recentRunMs.length > this.host.claimAhead.window) this.recentRunMs.shift();
  }

  private async process(claim: SessionClaim, foundWithoutWaiting: boolean): Promise<void> {
    const { store, queue, logger, clock } = this.host;
    const { token, entry } = claim;
    // A run that does not start leaves its session its turn.
    const keepTurn = { readySince: claim.readySince };
    let start: StartResult;
    try {
      // A parked run whose result arrived goes on from what it saved; any other starts.
      const starting = entry.resume
        ? store.resumeRun({ runId: entry.runId, token }, this.id)
        : store.startRun({ runId: entry.runId, token }, this.id);
      this.claimAhead(foundWithoutWaiting);
      start = await starting;
    } catch (error) {
      // The store is unreachable: keep the runs where they were and pause before claiming again.
      logger.warn({ err: error, runId: entry.runId }, "could not start a run; putting it back");
      await this.held?.putBack();
      this.held = null;
      await sleep(clock, STORE_BACKOFF_MS);
      await queue.release(claim, { putBack: entry, ...keepTurn });
      return;
    }
    if (start.kind === "blocked") {
      // An earlier run of the session is unfinished: wait for it instead of overtaking it.
      await queue.release(claim, { putBack: entry, ready: false, ...keepTurn });
      return;
    }
    if (start.kind !== "started") {
      await queue.release(claim, keepTurn);
      return;
    }
    const queueWaitMs = clock.now() - entry.enqueuedAt;
    this.onStarted(queueWaitMs);
    this.host.observers.runStarted?.({ run: start.run, queueWaitMs });
    // The slot is free once the executor is done; the run's end settles in the background
    // (run-end.ts), in the same group commit as the next runs' starts, while this worker claims
    // its next session.
    const executing = clock.now();
    await executeRun(this.host, start.run, claim, start.resumed);
    this.recordRunMs(clock.now() - executing);
  }
}
