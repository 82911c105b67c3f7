import type { CancelResult, Run, RunEvent, RunStep, SubmitRunInput } from "@oah/contract";
import { newRunId, OahError, type RecoveryPolicy } from "@oah/core";
import type { SessionQueue } from "@oah/queue";
import type { RunStore } from "@oah/store";
import type { CancelBus } from "./cancel-bus";
import type { Executor } from "./executors/executor";
import { Heartbeat } from "./heartbeat";
import type { EngineHooks, HostContext } from "./host";
import type { Logger } from "./logger";
import { type RecoveryOptions, recoverRun, recoverStaleRuns } from "./recovery/recover-stale-runs";
import { ActiveRuns } from "./worker/active-runs";
import { type SlotSnapshot, WorkerPool } from "./worker/worker-pool";

export interface EngineOptions {
  hostId: string;
  store: RunStore;
  queue: SessionQueue;
  cancelBus: CancelBus;
  executors: ReadonlyMap<string, Executor>;
  logger: Logger;
  hooks?: EngineHooks;
  /** Workers of this host; 0 serves the API only. */
  workers: number;
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
  };
}

const REBUILD_PAGE = 1_000;

/** The run engine of one process: submission and cancel for the API, and this host's workers. */
export class RunEngine {
  private readonly host: HostContext;
  private readonly pool: WorkerPool;
  private readonly heartbeat: Heartbeat;
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
    this.pool = new WorkerPool(this.host, options.workers);
    this.heartbeat = new Heartbeat(this.host, options.heartbeatIntervalMs);
  }

  get ready(): boolean {
    return this.state === "running";
  }

  get store(): RunStore {
    return this.options.store;
  }

  slots(): SlotSnapshot[] {
    return this.pool.slots();
  }

  private recoveryOptions(lastSeenBefore: number): RecoveryOptions {
    const { store, queue, logger, recovery, hostId } = this.options;
    return { store, queue, logger, policy: recovery, by: hostId, lastSeenBefore };
  }

  /** Recovers stale runs, fills the queue from the store, then starts the workers. */
  async start(): Promise<void> {
    this.state = "starting";
    const { recovery, logger } = this.options;
    if (this.options.workers > 0) {
      const lastSeenBefore = recovery.exclusiveOwner
        ? Number.MAX_SAFE_INTEGER
        : Date.now() - recovery.staleAfterMs;
      const summary = await recoverStaleRuns(this.recoveryOptions(lastSeenBefore));
      logger.info({ ...summary, strategy: recovery.strategy }, "start-up recovery done");
    }
    if (recovery.exclusiveOwner) await this.refillQueue();
    this.unsubscribeCancels = this.options.cancelBus.subscribe((runId) => {
      this.host.active.abort(runId, { kind: "cancel" });
    });
    this.pool.start();
    this.heartbeat.start();
    this.state = "running";
  }

  /** Puts every queued run of the store into the queue, in queue order: nothing submitted is lost by a restart. */
  private async refillQueue(): Promise<void> {
    let after: { sessionId: string; queueSeq: number } | undefined;
    let count = 0;
    for (;;) {
      const page = await this.options.store.listQueuedRuns({ after, limit: REBUILD_PAGE });
      if (page.length === 0) break;
      await this.options.queue.enqueue(page);
      count += page.length;
      const last = page[page.length - 1]!;
      after = { sessionId: last.sessionId, queueSeq: last.queueSeq };
    }
    if (count > 0) this.options.logger.info({ runs: count }, "queued runs put back into the queue");
  }

  /**
   * Stops claiming, lets runs in hand finish for up to the drain timeout, then
   * aborts the rest and hands them to recovery by the configured strategy.
   */
  async stop(): Promise<void> {
    if (this.state === "stopping" || this.state === "stopped") return;
    this.state = "stopping";
    const { logger, drainTimeoutMs } = this.options;
    const drained = await this.pool.drain(drainTimeoutMs);
    if (!drained) {
      const leftover = this.host.active.list();
      for (const run of leftover) run.controller.abort({ kind: "shutdown" });
      await this.pool.stopped();
      const options = this.recoveryOptions(Number.MAX_SAFE_INTEGER);
      for (const { claim } of leftover) {
        const run = await this.options.store.getRun(claim.runId);
        if (run)
          await recoverRun(run, options).catch((err) =>
            logger.error({ err, runId: run.id }, "drain recovery failed"),
          );
      }
      logger.warn({ runs: leftover.length }, "drain timed out; unfinished runs handed to recovery");
    }
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
        // The run is stored as queued; the next queue rebuild picks it up.
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
    switch (request.kind) {
      case "missing":
        throw new OahError("run_not_found", `no run with id ${runId}`);
      case "cancelled":
        await this.options.queue.remove(request.run.sessionId, runId);
        break;
      case "requested":
        await this.options.cancelBus.publish(runId);
        break;
    }
    return { runId, status: request.run.status };
  }
}
