import type {
  PoolDecision,
  PoolReport,
  PoolSample,
  PoolSnapshot,
  ProcessKind,
  WorkerLease,
} from "@oah/contract";
import type { PoolBoard } from "@oah/coordination";
import { isHealthyLease, type WorkerRegistry } from "@oah/coordination";
import {
  type CommandsAvailability,
  type HostState,
  type HysteresisConfig,
  INITIAL_REBALANCE_STATE,
  keepDecision,
  type PoolGlobalSignals,
  type PoolSizingConfig,
  type QueuePressure,
  type Rebalance,
  type RebalanceState,
  rebalance,
  shutdownRebalance,
  suggestPoolSize,
  workerIdOf,
} from "@oah/core";
import { settlesWithin } from "../clock";
import type { HostContext } from "../host-context";
import { PeriodicTask } from "../periodic-task";
import { Worker, type WorkerHost } from "../worker/worker";
import { PoolPublishing } from "./pool-publishing";
import { poolSnapshot, slotsOf } from "./pool-snapshot";
import { ProcessFigures } from "./process-figures";
import { QueueWaitWindow } from "./queue-wait-window";

export interface PoolOptions {
  min: number;
  max: number;
  sizing: Omit<PoolSizingConfig, "min" | "max">;
  hysteresis: HysteresisConfig;
  scaleIntervalMs: number;
  processKind: ProcessKind;
  /** Whether this host runs commands (shown in its snapshot). */
  commands: CommandsAvailability;
  /** Null without Redis: the pool then sizes itself on local figures only. */
  registry: WorkerRegistry | null;
  board: PoolBoard | null;
  /** One sample of history per this many ms, kept for `historyLength` samples. */
  historyIntervalMs?: number;
  historyLength?: number;
}

/** What the pool uses of its host: the queue's pressure, and what its workers use. */
export type PoolHost = WorkerHost & Pick<HostContext, "hostId" | "clock" | "queue" | "logger">;

/**
 * The workers of one host, sized elastically (docs/spec.md §8): on every tick it reads
 * the queue's pressure and the registry, asks the pure sizing policy, applies
 * the hysteresis, then starts workers or stops idle ones (never a busy one).
 * While its host is not `active` (cordoned, draining, drained) it claims nothing: it only
 * reports.
 */
export class ElasticPool {
  /** Set by the host's order follower; shown in the snapshot and the workers' leases. */
  hostState: HostState = "active";
  private readonly workers: Worker[] = [];
  private next = 0;
  private rebalanceState: RebalanceState = INITIAL_REBALANCE_STATE;
  private readonly decisions: PoolDecision[] = [];
  private snapshot: PoolSnapshot | null = null;
  private readonly ticks: PeriodicTask;
  private lastError: string | undefined;
  private readonly figures = new ProcessFigures();
  readonly queueWaits = new QueueWaitWindow();
  private readonly publishing: PoolPublishing;

  constructor(
    private readonly host: PoolHost,
    private readonly options: PoolOptions,
  ) {
    this.publishing = new PoolPublishing({
      hostId: host.hostId,
      board: options.board,
      reportTtlMs: this.leaseTtlMs,
      historyIntervalMs: options.historyIntervalMs ?? 5_000,
      historyLength: options.historyLength ?? 720,
    });
    this.ticks = new PeriodicTask(() => this.tick(), options.scaleIntervalMs, host.clock);
  }

  private get leaseTtlMs(): number {
    return 3 * this.options.scaleIntervalMs;
  }

  /** Sizes the pool once (a direct jump to the suggestion), then keeps sizing it. */
  async start(): Promise<void> {
    await this.tick();
    this.ticks.start();
  }

  private active(): Worker[] {
    return this.workers.filter((w) => !w.stopRequested);
  }

  async tick(): Promise<void> {
    const now = this.host.clock.now();
    try {
      const pressure = await this.host.queue.pressure();
      if (pressure.readySessionCount > 0 && this.active().some((w) => w.state === "idle"))
        this.host.queue.nudge();
      const global = await this.globalSignals(now);
      this.decide(pressure, global, now);
      if (this.lastError) this.host.logger.info({}, "pool sizing recovered");
      this.lastError = undefined;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError)
        this.host.logger.warn({ err: error }, "pool sizing failed; keeping the current size");
      this.lastError = message;
    }
  }

  private leases(now: number): WorkerLease[] {
    const { cpuPercent, rssMb } = this.figures.read();
    return this.workers.map((w) => ({
      workerId: w.id,
      hostId: this.host.hostId,
      processKind: this.options.processKind,
      state: w.state,
      sessionId: w.current?.sessionId ?? null,
      runId: w.current?.runId ?? null,
      lastSeenAt: now,
      expiresAt: now + this.leaseTtlMs,
      intervalMs: this.options.scaleIntervalMs,
      hostState: this.hostState,
      cpuPercent,
      rssMb,
    }));
  }

  private async globalSignals(now: number): Promise<PoolGlobalSignals | null> {
    const { registry } = this.options;
    if (!registry) return null;
    await registry.publish(this.leases(now), this.leaseTtlMs);
    const live = (await registry.list()).filter((l) => isHealthyLease(l, now) && l.state !== "stopping");
    const remote = live.filter((l) => l.hostId !== this.host.hostId);
    return {
      globalActiveWorkers: live.length,
      globalBusyWorkers: live.filter((l) => l.state === "busy").length,
      remoteActiveWorkers: remote.length,
      remoteBusyWorkers: remote.filter((l) => l.state === "busy").length,
    };
  }

  /** One tick's decision: the size, the snapshot of the pool so sized, and what is published of it. */
  private decide(pressure: QueuePressure, global: PoolGlobalSignals | null, now: number): void {
    const { suggestion, step } = this.size(pressure, global, now);
    this.snapshot = poolSnapshot({
      hostId: this.host.hostId,
      processKind: this.options.processKind,
      hostState: this.hostState,
      commands: this.options.commands,
      at: now,
      intervalMs: this.options.scaleIntervalMs,
      min: this.options.min,
      max: this.options.max,
      pressure,
      global,
      suggestion,
      step,
      workers: this.workers,
      queueWaitP50Ms: this.queueWaits.percentile(50, now),
      queueWaitP95Ms: this.queueWaits.percentile(95, now),
      lastRebalanceAt: this.rebalanceState.lastChangeAt,
      lastRebalanceReason: this.decisions[this.decisions.length - 1]?.reason ?? null,
    });
    this.publishing.publish(this.report()!);
  }

  /**
   * Asks the pure sizing policy and the hysteresis for this tick's size, and applies it while
   * the host claims (a host under an order keeps its workers until they are retired).
   */
  private size(pressure: QueuePressure, global: PoolGlobalSignals | null, now: number) {
    const { min, max, sizing, hysteresis } = this.options;
    const active = this.active();
    const busy = active.filter((w) => w.state === "busy").length;
    const idle = active.filter((w) => w.state === "idle").length;
    const suggestion = suggestPoolSize(
      { ...pressure, activeWorkers: active.length, busyWorkers: busy, idleWorkers: idle, global },
      { min, max, ...sizing },
    );
    const step = rebalance(this.rebalanceState, suggestion.localSuggested, now, hysteresis);
    if (this.hostState === "active")
      this.sizeTo(step, {
        at: now,
        reason: step.reason,
        previousDesired: step.previousDesired,
        desired: step.desired,
        localSuggested: suggestion.localSuggested,
        globalSuggested: suggestion.globalSuggested,
        pressures: suggestion.pressures,
        readySessionCount: pressure.readySessionCount,
        busyWorkers: global?.globalBusyWorkers ?? busy,
        activeWorkers: global?.globalActiveWorkers ?? active.length,
        remoteActiveWorkers: global?.remoteActiveWorkers ?? 0,
      });
    return { suggestion, step };
  }

  /** Applies a step of the hysteresis: the new size, and its decision. */
  private sizeTo(step: Rebalance, decision: PoolDecision): void {
    this.rebalanceState = step.state;
    this.resize(step.desired);
    this.record(step, decision);
  }

  /** Keeps a decision unless it equals the previous one but for its time; logs changes only. */
  private record(step: Rebalance, decision: PoolDecision): void {
    const last = this.decisions[this.decisions.length - 1];
    if (!keepDecision(this.decisions, decision)) return;
    if (!last || last.reason !== decision.reason || step.previousDesired !== step.desired) {
      this.host.logger.info(
        {
          reason: decision.reason,
          from: step.previousDesired,
          to: step.desired,
          suggested: decision.localSuggested,
        },
        "pool rebalance",
      );
    }
  }

  /** Starts workers up to `desired`, or stops the newest idle ones down to it. */
  private resize(desired: number): void {
    const active = this.active();
    for (let i = active.length; i < desired; i++) {
      const worker = new Worker(workerIdOf(this.host.hostId, ++this.next), this.host, (ms) =>
        this.queueWaits.record(ms, this.host.clock.now()),
      );
      this.workers.push(worker);
      worker.start();
    }
    let excess = active.length - desired;
    for (const worker of [...active].reverse()) {
      if (excess <= 0) break;
      if (worker.state !== "idle") continue;
      excess--;
      void this.retire(worker);
    }
  }

  private async retire(worker: Worker): Promise<void> {
    await worker.stop();
    this.workers.splice(this.workers.indexOf(worker), 1);
    await this.options.registry?.remove([worker.id]).catch(() => {});
  }

  slots(): PoolSnapshot["slots"] {
    return slotsOf(this.workers);
  }

  report(): PoolReport | null {
    return this.snapshot ? { snapshot: this.snapshot, recentDecisions: [...this.decisions] } : null;
  }

  history(): PoolSample[] {
    return this.publishing.history();
  }

  /** Stops claiming: each worker ends after its run in hand, and none starts until resumeClaiming. */
  stopClaiming(): void {
    for (const worker of this.active()) void this.retire(worker);
  }

  /** Claims again, sized afresh from the pressure at the next tick (a `startup` decision). */
  resumeClaiming(): void {
    this.rebalanceState = INITIAL_REBALANCE_STATE;
  }

  /** Stops sizing for good (the host is stopping), records it, and stops claiming. */
  async shutdown(): Promise<void> {
    await this.ticks.stop();
    const now = this.host.clock.now();
    const step = shutdownRebalance(this.rebalanceState, now);
    this.rebalanceState = step.state;
    const last = this.decisions[this.decisions.length - 1];
    if (last)
      this.record(step, {
        ...last,
        at: now,
        reason: "shutdown",
        previousDesired: step.previousDesired,
        desired: 0,
      });
    this.stopClaiming();
  }

  /** After stopClaiming: resolves true once no worker has a run in hand, or false after `timeoutMs`. */
  async idle(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const stopped = Promise.all(this.workers.map((w) => w.ended())).then(() => true);
    if (timeoutMs === Number.POSITIVE_INFINITY) return stopped;
    return settlesWithin(this.host.clock, stopped, timeoutMs);
  }

  /** Resolves when every worker loop has ended; withdraws this host's leases and report. */
  async stopped(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
    await this.options.registry?.remove(this.workers.map((w) => w.id)).catch(() => {});
    await this.publishing.withdraw();
  }
}
