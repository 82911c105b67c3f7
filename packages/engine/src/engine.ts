import type { CancelResult, PoolOverview, Run, RunEvent, RunStep, SubmitRunInput } from "@oah/contract";
import { newRunId, OahError, type RecoveryPolicy } from "@oah/core";
import type { SessionQueue } from "@oah/queue";
import type { RunStore } from "@oah/store";
import type { CancelBus } from "./coordination/cancel-bus";
import type { PoolBoard } from "./coordination/pool-board";
import type { RecoveryLock } from "./coordination/recovery-lock";
import type { Executor } from "./executors/executor";
import { Heartbeat } from "./heartbeat";
import type { EngineHooks, HostContext } from "./host";
import type { Logger } from "./logger";
import { ElasticPool, type PoolOptions } from "./pool/elastic-pool";
import { type RecoveryOptions, recoverRun, recoverStaleRuns } from "./recovery/recover-stale-runs";
import { ActiveRuns } from "./worker/active-runs";

export interface EngineOptions {
  hostId: string;
  store: RunStore;
  queue: SessionQueue;
  cancelBus: CancelBus;
  recoveryLock: RecoveryLock;
  /** Where the pools of every live host are published; null when this process is the only host. */
  board: PoolBoard | null;
  executors: ReadonlyMap<string, Executor>;
  logger: Logger;
  hooks?: EngineHooks;
  /** This host's worker pool; null serves the API only. */
  pool: PoolOptions | null;
  workspaceRoot: string;
  runTimeoutMs: number;
  heartbeatIntervalMs: number;
  drainTimeoutMs: number;
  recovery: RecoveryPolicy & {
    /**
     * Without a shared queue this process owns every run, so at its start every
     * active run is stale whatever its heartbeat (SPEC §7).
     */
    exclusiveOwner: boolean;
    staleAfterMs: number;
    /** Periodic scans for stale runs of other hosts; 0 scans only at start. */
    scanIntervalMs: number;
  };
}

const REFILL_PAGE = 1_000;

/** The run engine of one process: submission and cancel for the API, and this host's workers. */
export class RunEngine {
  private readonly host: HostContext;
  private readonly pool: ElasticPool | null;
  private readonly heartbeat: Heartbeat;
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private unsubscribeCancels: (() => void) | undefined;
  private state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";

  constructor(private readonly options: EngineOptions) {
    this.host = {
      hostId: options.hostId,
      store: options.store,
      queue: options.queue,
      executors: options.executors,
      active: new ActiveRuns(),
      logger: options.logger,
      hooks: options.hooks ?? {},
      workspaceRoot: options.workspaceRoot,
      finishRetryMs: options.recovery.staleAfterMs,
    };
    this.pool = options.pool ? new ElasticPool(this.host, options.pool) : null;
    this.heartbeat = new Heartbeat(this.host, options.heartbeatIntervalMs);
  }

  get ready(): boolean {
    return this.state === "running";
  }

  get store(): RunStore {
    return this.options.store;
  }

  slots() {
    return this.pool?.slots() ?? [];
  }

  private recoveryOptions(lastSeenBefore: number): RecoveryOptions {
    const { store, queue, logger, recovery, hostId } = this.options;
    return { store, queue, logger, policy: recovery, by: hostId, lastSeenBefore };
  }

  /** One scan for stale runs, by one host at a time. */
  private async scanForStaleRuns(lastSeenBefore: number): Promise<void> {
    const { recoveryLock, recovery, logger } = this.options;
    const token = await recoveryLock.tryAcquire(Math.max(60_000, recovery.staleAfterMs));
    if (!token) return;
    try {
      const summary = await recoverStaleRuns(this.recoveryOptions(lastSeenBefore));
      if (summary.requeued + summary.failed + summary.quarantined > 0) {
        logger.warn({ ...summary, strategy: recovery.strategy }, "stale runs recovered");
      }
    } finally {
      await recoveryLock.release(token).catch(() => {});
    }
  }

  /**
   * A worker host recovers stale runs and fills the queue from the store before
   * its workers claim anything; then the pool starts.
   */
  async start(): Promise<void> {
    this.state = "starting";
    const { recovery } = this.options;
    if (this.pool) {
      const now = Date.now();
      await this.scanForStaleRuns(
        recovery.exclusiveOwner ? Number.MAX_SAFE_INTEGER : now - recovery.staleAfterMs,
      );
      await this.refillQueue();
      if (!recovery.exclusiveOwner && recovery.scanIntervalMs > 0) {
        this.scanTimer = setInterval(() => {
          this.scanning ??= this.scanForStaleRuns(Date.now() - recovery.staleAfterMs)
            .catch((err) => this.options.logger.warn({ err }, "stale run scan failed"))
            .finally(() => {
              this.scanning = undefined;
            });
        }, recovery.scanIntervalMs);
        this.scanTimer.unref();
      }
    }
    this.unsubscribeCancels = this.options.cancelBus.subscribe((runId) => {
      this.host.active.abort(runId, { kind: "cancel" });
    });
    await this.pool?.start();
    this.heartbeat.start();
    this.state = "running";
  }

  /**
   * Puts every queued run of the store into the queue, in queue order: nothing
   * submitted is lost by a restart. Enqueueing is idempotent per run, and the
   * store refuses to start a run twice, so a run already in hand elsewhere is safe.
   */
  private async refillQueue(): Promise<void> {
    let after: { sessionId: string; queueSeq: number } | undefined;
    let count = 0;
    for (;;) {
      const page = await this.options.store.listQueuedRuns({ after, limit: REFILL_PAGE });
      if (page.length === 0) break;
      await this.options.queue.enqueue(page);
      count += page.length;
      const last = page[page.length - 1]!;
      after = { sessionId: last.sessionId, queueSeq: last.queueSeq };
    }
    if (count > 0) this.options.logger.info({ runs: count }, "queued runs put into the queue");
  }

  /**
   * Stops claiming, lets runs in hand finish for up to the drain timeout, then
   * aborts the rest and hands them to recovery by the configured strategy.
   */
  async stop(): Promise<void> {
    if (this.state === "stopping" || this.state === "stopped") return;
    this.state = "stopping";
    clearInterval(this.scanTimer);
    await this.scanning;
    const { logger, drainTimeoutMs } = this.options;
    if (this.pool && !(await this.pool.drain(drainTimeoutMs))) {
      const leftover = this.host.active.list();
      for (const run of leftover) run.controller.abort({ kind: "shutdown" });
      await this.pool.stopped();
      const options = this.recoveryOptions(Number.MAX_SAFE_INTEGER);
      for (const { claim } of leftover) {
        const run = await this.options.store.getRun(claim.runId);
        if (run) {
          await recoverRun(run, options).catch((err) =>
            logger.error({ err, runId: run.id }, "drain recovery failed"),
          );
        }
      }
      logger.warn({ runs: leftover.length }, "drain timed out; unfinished runs handed to recovery");
    }
    await this.pool?.stopped();
    await this.heartbeat.stop();
    this.unsubscribeCancels?.();
    this.state = "stopped";
  }

  async submit(input: SubmitRunInput): Promise<{ run: Run; created: boolean }> {
    const { run, created, queueEntry } = await this.options.store.createRun({
      id: newRunId(),
      sessionId: input.sessionId,
      workspaceId: input.workspaceId,
      parentRunId: input.parentRunId ?? null,
      priority: input.priority,
      executor: input.executor,
      input: input.input,
      timeoutMs: input.timeoutMs ?? this.options.runTimeoutMs,
      idempotencyKey: input.idempotencyKey ?? null,
    });
    if (created) {
      this.host.hooks.runSubmitted?.({ run });
      try {
        await this.options.queue.enqueue([queueEntry]);
      } catch (error) {
        // The run is stored as queued; the next queue refill picks it up.
        this.options.logger.error({ err: error, runId: run.id }, "could not enqueue a stored run");
      }
    }
    return { run, created };
  }

  async getRun(runId: string): Promise<Run> {
    const run = await this.options.store.getRun(runId);
    if (!run) throw new OahError("run_not_found", `no run with id ${runId}`);
    return run;
  }

  async listSessionRuns(sessionId: string, page: { after?: number; limit: number }): Promise<Run[]> {
    return this.options.store.listSessionRuns(sessionId, page);
  }

  async listRunEvents(runId: string, page: { after?: number; limit: number }): Promise<RunEvent[]> {
    const events = await this.options.store.listRunEvents(runId, page);
    if (events.length === 0) await this.getRun(runId);
    return events;
  }

  async listRunSteps(runId: string): Promise<RunStep[]> {
    const steps = await this.options.store.listRunSteps(runId);
    if (steps.length === 0) await this.getRun(runId);
    return steps;
  }

  /** A queued run is cancelled at once; an active one is aborted wherever it executes. */
  async cancel(runId: string): Promise<CancelResult> {
    const request = await this.options.store.requestCancel(runId);
    if (request.kind === "missing") throw new OahError("run_not_found", `no run with id ${runId}`);
    // The store has recorded the cancel: if the queue cannot be told now, a worker that
    // claims the run finds it cancelled, and the executing host finds the request on its heartbeat.
    try {
      if (request.kind === "cancelled") await this.options.queue.remove(request.run.sessionId, runId);
      if (request.kind === "requested") await this.options.cancelBus.publish(runId);
    } catch (error) {
      this.options.logger.warn({ err: error, runId }, "cancel recorded; the queue could not be told at once");
    }
    return { runId, status: request.run.status };
  }

  /** The pools of every live host (from the board), or of this process alone. */
  async poolOverview(): Promise<PoolOverview> {
    const { board } = this.options;
    const reports = board ? await board.reports() : [this.pool?.report()].filter((r) => r != null);
    const history = await Promise.all(
      reports.map(async ({ snapshot }) => ({
        hostId: snapshot.hostId,
        samples: board ? await board.history(snapshot.hostId) : (this.pool?.history() ?? []),
      })),
    );
    const recentDecisions = reports
      .flatMap(({ snapshot, recentDecisions }) =>
        recentDecisions.map((d) => ({ ...d, hostId: snapshot.hostId })),
      )
      .sort((a, b) => b.at - a.at);
    return {
      hosts: reports.map((r) => r.snapshot).sort((a, b) => a.hostId.localeCompare(b.hostId)),
      recentDecisions,
      history,
    };
  }
}
