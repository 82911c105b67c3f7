import type {
  CancelResult,
  ListStorageRunsInput,
  PoolOverview,
  RequeueAccepted,
  RequeueItem,
  Run,
  RunEvent,
  RunStep,
  StorageOverview,
  StorageRunsPage,
  SubmitRunInput,
} from "@oah/contract";
import { runExecutesCommands, sameSubmission } from "@oah/contract";
import {
  type ApiErrorCode,
  type ClaimAheadPolicy,
  DEFAULT_CLAIM_AHEAD,
  newRunId,
  OahError,
  type RecoveryPolicy,
} from "@oah/core";
import type { SessionQueue } from "@oah/queue";
import type { RunStore } from "@oah/store";
import { decodeCursor, encodeCursor, normalizeFilters } from "./admin/storage-cursor";
import type { HostLeases } from "./coordination/host-leases";
import type { PoolBoard } from "./coordination/pool-board";
import type { RecoveryLock } from "./coordination/recovery-lock";
import type { RunSignalBus } from "./coordination/run-signal-bus";
import type { Executor } from "./executors/executor";
import { Heartbeat } from "./heartbeat";
import { HookRunner } from "./hooks/hook-runner";
import { type EngineObservers, type HostContext, Settling } from "./host";
import type { Liveness } from "./liveness";
import type { Logger } from "./logger";
import { ElasticPool, type PoolOptions } from "./pool/elastic-pool";
import { type RecoveryOptions, recoverRun, recoverStaleRuns } from "./recovery/recover-stale-runs";
import { ActiveRuns } from "./worker/active-runs";

export interface EngineOptions {
  hostId: string;
  store: RunStore;
  queue: SessionQueue;
  signals: RunSignalBus;
  recoveryLock: RecoveryLock;
  /** Where the pools of every live host are published; null when this process is the only host. */
  board: PoolBoard | null;
  executors: ReadonlyMap<string, Executor>;
  /** The configured hooks (OAH_HOOKS); none by default. */
  hooks?: HookRunner;
  logger: Logger;
  observers?: EngineObservers;
  /** This host's worker pool; null serves the API only. */
  pool: PoolOptions | null;
  /** When a slot claims its next session while its run starts; DEFAULT_CLAIM_AHEAD by default. */
  claimAhead?: ClaimAheadPolicy;
  workspaceRoot: string;
  /** False with OAH_SHELL=off: runs that would execute commands are refused at submission. */
  acceptsCommandRuns: boolean;
  /** Where hosts renew their leases (the runs they execute), each for `leaseTtlMs`. */
  leases: HostLeases;
  leaseTtlMs: number;
  /** With other hosts that may recover this one's runs: how long it may execute without renewing its lease. */
  liveness: Liveness | null;
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
    /** Periodic scans for stale runs of other hosts, and reconciles of queue and store; 0: only at start. */
    scanIntervalMs: number;
  };
}

const REFILL_PAGE = 1_000;

/** Who asks for a requeue, and whether runs whose cancel was requested start again too. */
export interface RequeueRequest {
  requestedBy?: string;
  includeCancelled?: boolean;
}

/** The run engine of one process: submission and cancel for the API, and this host's workers. */
export class RunEngine {
  private readonly host: HostContext;
  private readonly pool: ElasticPool | null;
  private readonly heartbeat: Heartbeat;
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private unsubscribeSignals: (() => void) | undefined;
  private unsubscribeLiveness: (() => void) | undefined;
  private state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";

  constructor(private readonly options: EngineOptions) {
    this.host = {
      hostId: options.hostId,
      store: options.store,
      queue: options.queue,
      executors: options.executors,
      active: new ActiveRuns(),
      logger: options.logger,
      observers: options.observers ?? {},
      hooks: options.hooks ?? new HookRunner({ hooks: [], timeoutMs: 1, commands: null, env: () => ({}) }),
      workspaceRoot: options.workspaceRoot,
      finishRetryMs: options.recovery.staleAfterMs,
      claimAhead: options.claimAhead ?? DEFAULT_CLAIM_AHEAD,
      settling: new Settling(),
      leases: options.leases,
      leaseTtlMs: options.leaseTtlMs,
      liveness: options.liveness,
    };
    this.pool = options.pool ? new ElasticPool(this.host, options.pool) : null;
    this.heartbeat = new Heartbeat(this.host, options.heartbeatIntervalMs, this.pool !== null);
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
    const { store, queue, logger, recovery, hostId, leases } = this.options;
    return { store, queue, logger, policy: recovery, by: hostId, lastSeenBefore, leases };
  }

  /**
   * Maintenance, by one host at a time: recover stale runs, then reconcile the
   * queue with the store (the store is the source of truth).
   */
  private async maintain(lastSeenBefore: number): Promise<void> {
    const { recoveryLock, recovery, logger } = this.options;
    // Short-lived: a host killed or frozen while it scans holds the others back only this long.
    // Exclusivity only saves work; each recovery re-checks the run under its row lock.
    const token = await recoveryLock.tryAcquire(Math.max(5_000, 2 * recovery.scanIntervalMs));
    if (!token) return;
    try {
      const summary = await recoverStaleRuns(this.recoveryOptions(lastSeenBefore));
      if (summary.requeued + summary.failed + summary.quarantined + summary.cancelled > 0) {
        logger.warn({ ...summary, strategy: recovery.strategy }, "stale runs recovered");
      }
      if (summary.held > 0) {
        logger.warn(
          { runs: summary.held },
          "stale runs left alone: the hosts executing them still renew their leases",
        );
      }
      await this.reconcileQueue();
    } finally {
      await recoveryLock.release(token).catch(() => {});
    }
  }

  /**
   * Runs the store says are queued but the queue has lost are enqueued again at
   * their place: all of them when the queue's state is gone (Redis flushed or
   * restarted), else those queued longer than a claim can take to start and in no
   * claim's hands; the sessions of such runs that the queue holds but nothing could
   * claim (not locked, not ready) are made ready. Entries whose run is finished or
   * unknown are dropped.
   */
  private async reconcileQueue(): Promise<void> {
    const { store, queue, logger, recovery } = this.options;
    if (await queue.markLive()) {
      await this.refillQueue();
      return;
    }
    const long = await store.listQueuedRuns({
      enqueuedBefore: Date.now() - recovery.staleAfterMs,
      limit: 1_000,
    });
    const lostIds = new Set(await queue.lost(long));
    // Read again after the queue: a run that started and ended between the two reads is not lost.
    const statuses = lostIds.size > 0 ? await store.statusesOf([...lostIds]) : new Map();
    const lost = long.filter((e) => lostIds.has(e.runId) && statuses.get(e.runId) === "queued");
    if (lost.length > 0) {
      await queue.enqueue(lost);
      logger.warn({ runs: lost.length }, "queued runs missing from the queue were enqueued again");
    }
    const waiting = new Set(long.filter((e) => !lostIds.has(e.runId)).map((e) => e.sessionId));
    const stranded = await queue.readyStranded([...waiting]);
    if (stranded.length > 0) {
      logger.warn(
        { sessions: stranded.length },
        "sessions with queued runs but no way to be claimed were made ready",
      );
    }
    if ((await queue.size()) <= (await store.countQueued())) return;
    let dropped = 0;
    for await (const batch of queue.entries()) {
      const statuses = await store.statusesOf(batch.map((e) => e.runId));
      for (const entry of batch) {
        if (statuses.get(entry.runId) === "queued") continue;
        if (await queue.remove(entry.sessionId, entry.runId)) dropped++;
      }
    }
    if (dropped > 0) logger.warn({ entries: dropped }, "queue entries of finished or unknown runs dropped");
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
      await this.maintain(recovery.exclusiveOwner ? Number.MAX_SAFE_INTEGER : now - recovery.staleAfterMs);
      if (!recovery.exclusiveOwner && recovery.scanIntervalMs > 0) {
        this.scanTimer = setInterval(() => {
          this.scanning ??= this.maintain(Date.now() - recovery.staleAfterMs)
            .catch((err: unknown) => this.options.logger.warn({ err }, "maintenance failed"))
            .finally(() => {
              this.scanning = undefined;
            });
        }, recovery.scanIntervalMs);
        this.scanTimer.unref();
      }
    }
    this.unsubscribeSignals = this.options.signals.subscribe(({ kind, runId }) => {
      if (kind === "cancel") this.host.active.abort(runId, { kind: "cancel" });
      else this.host.active.notifyToolResult(runId);
    });
    this.unsubscribeLiveness = this.options.liveness?.onLost(() => this.livenessLost());
    // The lease is in place before this host executes anything.
    await this.heartbeat.tick();
    await this.pool?.start();
    this.heartbeat.start();
    this.state = "running";
  }

  /**
   * This host could not renew its lease in time: other hosts may soon recover its runs,
   * and the watchdog has killed (or is killing) their steps. It stops them and writes
   * nothing more; recovery takes them over once they are stale.
   */
  private livenessLost(): void {
    const runs = this.host.active.list();
    for (const run of runs) run.controller.abort({ kind: "fenced" });
    this.options.logger.error(
      { runs: runs.length, windowMs: this.options.liveness?.windowMs },
      "this host could not renew its lease in time: its runs were stopped and are left to recovery",
    );
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
    await this.host.settling.done();
    await this.heartbeat.stop();
    await this.options.leases.remove(this.options.hostId).catch(() => {});
    this.unsubscribeSignals?.();
    this.unsubscribeLiveness?.();
    this.state = "stopped";
  }

  async submit(input: SubmitRunInput): Promise<{ run: Run; created: boolean }> {
    if (!this.options.acceptsCommandRuns && runExecutesCommands(input)) {
      throw new OahError(
        "shell_disabled",
        "this deployment runs no commands (OAH_SHELL=off): shell and hook steps and the agent's shell tool are refused",
      );
    }
    const asked = {
      id: newRunId(),
      sessionId: input.sessionId,
      workspaceId: input.workspaceId,
      parentRunId: input.parentRunId ?? null,
      priority: input.priority,
      executor: input.executor,
      input: input.input,
      timeoutMs: input.timeoutMs ?? this.options.runTimeoutMs,
      idempotencyKey: input.idempotencyKey ?? null,
    };
    const { run, created, queueEntry } = await this.options.store.createRun(asked);
    if (!created && !sameSubmission(run, asked)) {
      throw new OahError(
        "idempotency_key_conflict",
        `idempotencyKey ${JSON.stringify(asked.idempotencyKey)} was used in session ${run.sessionId} for ` +
          `${run.id}, with another body; use a new key for another run`,
      );
    }
    if (created) {
      this.host.observers.runSubmitted?.({ run });
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
      if (request.kind === "requested") await this.options.signals.publish({ kind: "cancel", runId });
    } catch (error) {
      this.options.logger.warn({ err: error, runId }, "cancel recorded; the queue could not be told at once");
    }
    return { runId, status: request.run.status };
  }

  /** A client's result for a run in `waiting_tool`; the executing host resumes the run with it. */
  async submitToolResult(runId: string, name: string, output: unknown) {
    const delivery = await this.options.store.deliverToolResult(runId, name, output);
    switch (delivery.kind) {
      case "unknown_run":
        throw new OahError("tool_result_unknown_run", `no run with id ${runId}`);
      case "not_waiting":
        throw new OahError(
          "tool_result_not_waiting",
          delivery.status === "waiting_tool"
            ? `the run already has a result for ${delivery.waitingTool}`
            : `the run is ${delivery.status}, not waiting for a tool result`,
        );
      case "wrong_name":
        throw new OahError(
          "tool_result_wrong_name",
          `the run waits for ${delivery.waitingTool}, not ${name}`,
        );
    }
    try {
      await this.options.signals.publish({ kind: "tool_result", runId });
    } catch (error) {
      this.options.logger.warn(
        { err: error, runId },
        "tool result stored; its host finds it on its heartbeat",
      );
    }
    return { runId, name, status: "accepted" as const };
  }

  /** An operator's requeue of one run; a refusal is an error with its code (409, or 404). */
  async requeue(runId: string, request: RequeueRequest = {}): Promise<RequeueAccepted> {
    const [item] = await this.requeueMany([runId], request);
    if (item!.status === "error") throw new OahError(item!.errorCode as ApiErrorCode, item!.errorMessage);
    return item!;
  }

  /** An operator's requeue of many runs, answered item by item (a repeated id is answered once). */
  async requeueMany(runIds: readonly string[], request: RequeueRequest = {}): Promise<RequeueItem[]> {
    const { store, queue, logger, recovery } = this.options;
    const outcomes = await store.requeueRuns([...new Set(runIds)], {
      by: request.requestedBy ?? "api",
      maxAttempts: recovery.maxAttempts,
      includeCancelled: request.includeCancelled ?? false,
    });
    const accepted = outcomes.flatMap((o) => (o.ok ? [o.queueEntry] : []));
    try {
      await queue.enqueue(accepted);
    } catch (error) {
      // Stored as queued: the next reconcile enqueues them.
      logger.error({ err: error, runs: accepted.length }, "requeued runs could not be enqueued yet");
    }
    return outcomes.map(
      (o): RequeueItem =>
        o.ok
          ? { runId: o.runId, status: "queued", previousStatus: o.previousStatus, source: "manual_requeue" }
          : { runId: o.runId, status: "error", errorCode: o.code, errorMessage: o.message },
    );
  }

  /** The storage admin's runs list (SPEC §9): filtered, newest first, keyset-paged. */
  async listStorageRuns(input: ListStorageRunsInput): Promise<StorageRunsPage> {
    const { limit, cursor, ...filters } = input;
    const appliedFilters = normalizeFilters(filters);
    const after = cursor ? decodeCursor(cursor, appliedFilters) : undefined;
    const rows = await this.options.store.listRuns({
      ...appliedFilters,
      createdFrom: filters.createdFrom ? Date.parse(filters.createdFrom) : undefined,
      createdTo: filters.createdTo ? Date.parse(filters.createdTo) : undefined,
      after,
      limit: limit + 1,
    });
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const nextCursor =
      rows.length > limit && last
        ? encodeCursor({ createdAt: Date.parse(last.createdAt), id: last.id }, appliedFilters)
        : null;
    return { items, nextCursor, appliedFilters };
  }

  overview(): Promise<StorageOverview> {
    return this.options.store.overview();
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
