import type { RunSignalBus, SessionQueue } from "@oah/coordination";
import type { BulkChunk, BulkJobStore } from "@oah/store";
import { type Clock, sleep } from "../clock";
import type { Logger } from "../logger";
import { PeriodicTask } from "../periodic-task";
import { parkedRunsEnded } from "../tool-wait";

export interface BulkRunnerSettings {
  /** Who works the jobs (this host's id): the owner of their leases. */
  owner: string;
  /** The most runs a second acted on: what keeps a job from taking the store from the workers. */
  runsPerSecond: number;
  /** The fresh budget of a requeue (OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS). */
  maxAttempts: number;
  /**
   * How long a job stays this process's without a chunk (a session lock's TTL): past it (the
   * process died or froze), another takes it up where it was.
   */
  leaseMs: number;
}

/** Runs acted on per chunk (one transaction each), at most. */
const CHUNK = 100;
/** How often a process looks for a job nobody works. */
const LOOK_EVERY_MS = 1_000;
/** Chunks in a row that may fail (the store away) before the job is given up as failed. */
const FAILURES_ALLOWED = 10;

/**
 * Works the bulk jobs of the store in the API processes: takes a job nobody works (a new one,
 * or one whose process died: it goes on where it was), acts on its runs a chunk at a time at
 * `runsPerSecond` at most, and tells the queue and the hosts what each chunk did.
 */
export class BulkJobRunner {
  private readonly looking: PeriodicTask;
  private stopping = false;

  constructor(
    private readonly parts: {
      store: BulkJobStore;
      queue: SessionQueue;
      signals: RunSignalBus;
      logger: Logger;
      clock: Clock;
    },
    private readonly settings: BulkRunnerSettings,
  ) {
    this.looking = new PeriodicTask(() => this.work(), LOOK_EVERY_MS, parts.clock);
  }

  start(): void {
    this.stopping = false;
    this.looking.start();
  }

  /** A job was started here: no need to wait for the next look. */
  wake(): void {
    if (!this.stopping) void this.work().catch(() => {});
  }

  /** No new chunk; resolves once the chunk in hand is done (the job is taken up again later). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.looking.stop();
    await this.working;
  }

  private working: Promise<void> | undefined;

  private work(): Promise<void> {
    this.working ??= this.workJobs().finally(() => {
      this.working = undefined;
    });
    return this.working;
  }

  private async workJobs(): Promise<void> {
    const { store, logger } = this.parts;
    while (!this.stopping) {
      const job = await store
        .leaseBulkJob(this.settings.owner, this.settings.leaseMs)
        .catch((error: unknown) => {
          logger.warn({ err: error }, "could not look for bulk jobs");
          return null;
        });
      if (!job) return;
      logger.info(
        { jobId: job.id, action: job.action, total: job.total, done: job.done },
        "working a bulk job",
      );
      await this.drive(job.id);
    }
  }

  private async drive(jobId: string): Promise<void> {
    const { store, logger, clock } = this.parts;
    const size = Math.max(1, Math.min(CHUNK, this.settings.runsPerSecond));
    const chunkMs = (1_000 * size) / this.settings.runsPerSecond;
    let failures = 0;
    while (!this.stopping) {
      const started = clock.now();
      let chunk: BulkChunk | null;
      try {
        chunk = await store.runBulkChunk(
          jobId,
          this.settings.owner,
          size,
          this.settings.leaseMs,
          this.settings.maxAttempts,
        );
        failures = 0;
      } catch (error) {
        logger.warn({ err: error, jobId }, "a chunk of a bulk job failed; trying again");
        if (++failures >= FAILURES_ALLOWED) {
          await store.failBulkJob(jobId, this.settings.owner, (error as Error).message).catch(() => {});
          return;
        }
        await sleep(clock, 1_000);
        continue;
      }
      // Aborted, taken over, or done.
      if (!chunk) return;
      await this.tell(chunk);
      if (chunk.job.status !== "running") {
        logger.info({ jobId, status: chunk.job.status, outcomes: chunk.job.outcomes }, "bulk job ended");
        return;
      }
      await sleep(clock, Math.max(0, chunkMs - (clock.now() - started)));
    }
  }

  /** What a chunk did, told after it committed: a failure here is mended by reconcile and heartbeats. */
  private async tell(chunk: BulkChunk): Promise<void> {
    const { queue, signals, logger } = this.parts;
    try {
      if (chunk.requeued.length > 0) await queue.enqueue(chunk.requeued);
      for (const runId of chunk.cancelRequested) await signals.publish({ kind: "cancel", runId });
      await parkedRunsEnded(queue, chunk.parkedCancelled);
    } catch (error) {
      logger.warn(
        { err: error, jobId: chunk.job.id },
        "a bulk chunk is recorded; the queue could not be told at once",
      );
    }
  }
}
