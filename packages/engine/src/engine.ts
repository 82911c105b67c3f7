import type { Backend } from "@oah/coordination";
import {
  type ClaimAheadPolicy,
  type CommandsAvailability,
  DEFAULT_CLAIM_AHEAD,
  type WaitMode,
} from "@oah/core";
import type { RunStore } from "@oah/store";
import { ActiveRuns } from "./active-runs";
import { BulkJobRunner } from "./bulk/bulk-runner";
import { BulkService } from "./bulk/bulk-service";
import { type Clock, systemClock } from "./clock";
import { NoCommands } from "./commands/command-runner";
import type { Executor } from "./executors/executor";
import { Heartbeat } from "./heartbeat";
import { HookRunner } from "./hooks/hook-runner";
import type { HostContext } from "./host-context";
import { JamService } from "./jams/jam-service";
import { HostLifecycle } from "./lifecycle/host-lifecycle";
import type { Liveness } from "./liveness";
import type { Logger } from "./logger";
import { Maintenance } from "./maintenance/maintenance";
import type { MaintenanceSettings } from "./maintenance/task";
import { MAINTENANCE_PLUGINS } from "./maintenance/tasks";
import type { EngineObservers } from "./observers";
import { ElasticPool, type PoolOptions } from "./pool/elastic-pool";
import { AuditService } from "./service/audit-service";
import { FleetService } from "./service/fleet-service";
import type { PoolReports } from "./service/pool-overview";
import { RunService } from "./service/run-service";
import { SessionInspector } from "./service/session-inspector";
import { StreamService } from "./service/stream-service";
import { fleetWorkload } from "./service/workload";
import { Settling } from "./settling";
import { DEFAULT_STREAM_SETTINGS, type EventStreamSettings } from "./streams/event-stream";
import { StreamHub } from "./streams/stream-hub";
import { HeldWaits } from "./tool-wait";

export interface EngineOptions {
  hostId: string;
  /** The time every part reads and sets its timers on; the system clock by default. */
  clock?: Clock;
  store: RunStore;
  /** The parts this process coordinates through with the others (or alone); the engine does not close it. */
  backend: Backend;
  /** How the event streams this process serves read the store; DEFAULT_STREAM_SETTINGS by default. */
  streams?: Partial<EventStreamSettings>;
  executors: ReadonlyMap<string, Executor>;
  /** The configured hooks (OAH_HOOKS); none by default. */
  hooks?: HookRunner;
  logger: Logger;
  observers?: EngineObservers;
  /** This host's worker pool; null serves the API only. */
  pool: Omit<PoolOptions, "commands" | "registry" | "board"> | null;
  /** When a slot claims its next session while its run starts; DEFAULT_CLAIM_AHEAD by default. */
  claimAhead?: ClaimAheadPolicy;
  workspaceRoot: string;
  /** Whether this deployment runs commands (OAH_SHELL, and the jail this host could make). */
  commands: CommandsAvailability;
  /** How long a host's lease (the runs it executes) lasts once renewed. */
  leaseTtlMs: number;
  /** With other hosts that may recover this one's runs: how long it may execute without renewing its lease. */
  liveness: Liveness | null;
  runTimeoutMs: number;
  /** An API process works the store's bulk jobs, at most this many runs a second; null: it does not. */
  bulkRunsPerSecond: number | null;
  /** The audited actions one token may make a minute here, but a run client's (OAH_AUDIT_ACTIONS_PER_MINUTE). */
  auditActionsPerMinute: number;
  /** How runs wait for a client's tool result (OAH_WAIT_MODE); `park` by default. */
  waitMode?: WaitMode;
  /** Whether executions checkpoint their completed steps and resume from them (OAH_CHECKPOINTS); true by default. */
  checkpoints?: boolean;
  /** How long an interrupted run may go on to its next step boundary (OAH_INTERRUPT_GRACE_MS); 10 s by default. */
  interruptGraceMs?: number;
  heartbeatIntervalMs: number;
  drainTimeoutMs: number;
  recovery: MaintenanceSettings;
}

/** The commands of the hooks of an engine given none: there are no hooks to run them. */
const NO_HOOK_COMMANDS = new NoCommands({
  available: false,
  code: "shell_disabled",
  reason: "no hooks are configured",
});

/** What the API asks of the engine (docs/spec.md §12): the services its procedures call. */
export interface EngineServices {
  service: RunService;
  fleet: FleetService;
  streams: StreamService;
  audit: AuditService;
  bulk: BulkService;
  /** The session inspector and the cancel of a session's queued runs. */
  sessions: SessionInspector;
  jams: JamService;
}

/** The engine of one process: the host's life, and the services the API calls. */
export interface RunEngine extends EngineServices {
  /** Whether this deployment runs commands, and why not (readiness, metrics, the pool snapshot). */
  commands: CommandsAvailability;
  lifecycle: HostLifecycle;
}

/**
 * Builds the engine of one process: the context its parts share, its pool, heartbeat
 * and maintenance (on a worker host), their lifecycle, and the service the API calls.
 */
export function createEngine(options: EngineOptions): RunEngine {
  const { backend, logger, recovery, hostId } = options;
  const { queue, signals, events, leases } = backend;
  const { store } = options;
  const clock = options.clock ?? systemClock;
  // Every write the store commits names its sessions: their streams, in every process, read at once.
  store.announceWrites((sessionIds) => events.publish({ kind: "written", sessionIds }));
  const observers = options.observers ?? {};
  const host: HostContext = {
    hostId,
    clock,
    store,
    queue,
    executors: options.executors,
    active: new ActiveRuns(),
    heldWaits: new HeldWaits(),
    logger,
    observers,
    events,
    hooks:
      options.hooks ??
      new HookRunner({ hooks: [], timeoutMs: 1, commands: NO_HOOK_COMMANDS, env: () => ({}) }),
    workspaceRoot: options.workspaceRoot,
    finishRetryMs: recovery.staleAfterMs,
    claimAhead: options.claimAhead ?? DEFAULT_CLAIM_AHEAD,
    settling: new Settling(),
    leases,
    leaseTtlMs: options.leaseTtlMs,
    liveness: options.liveness,
    waitMode: options.waitMode ?? "park",
    checkpoints: options.checkpoints ?? true,
    interruptGraceMs: options.interruptGraceMs ?? 10_000,
  };
  const pool = options.pool
    ? new ElasticPool(host, {
        ...options.pool,
        commands: options.commands,
        registry: backend.workers,
        board: backend.board,
      })
    : null;
  const bulkJobs =
    options.bulkRunsPerSecond === null
      ? null
      : new BulkJobRunner(
          { store, queue, signals, logger, clock },
          {
            owner: hostId,
            runsPerSecond: options.bulkRunsPerSecond,
            maxAttempts: recovery.maxAttempts,
            leaseMs: options.leaseTtlMs,
          },
        );
  const maintenance = pool
    ? new Maintenance(
        MAINTENANCE_PLUGINS.map((plugin) => plugin({ host, settings: recovery })),
        backend.maintenanceLock,
        { logger, observers, clock },
      )
    : null;
  const pools: PoolReports = backend.board ?? {
    reports: async () => [pool?.report()].filter((r) => r != null),
    history: async () => pool?.history() ?? [],
  };
  const service = new RunService({
    store,
    queue,
    signals,
    logger,
    observers,
    commands: options.commands,
    runTimeoutMs: options.runTimeoutMs,
    maxAttempts: recovery.maxAttempts,
  });
  return {
    commands: options.commands,
    lifecycle: new HostLifecycle({
      host,
      pool,
      maintenance,
      heartbeat: new Heartbeat(host, options.heartbeatIntervalMs, pool !== null),
      bulkJobs,
      signals,
      orders: backend.orders,
      orderIntervalMs: options.pool?.scaleIntervalMs ?? 1_000,
      drainTimeoutMs: options.drainTimeoutMs,
      recovery: { store, queue, logger, leases, policy: recovery, by: hostId },
    }),
    service,
    sessions: new SessionInspector(store, queue, service),
    jams: new JamService({
      store,
      queue,
      leases,
      workers: backend.workers,
      clock,
      staleAfterMs: recovery.staleAfterMs,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      recovery: { policy: recovery, by: hostId },
      logger,
    }),
    fleet: new FleetService({
      pools,
      orders: backend.orders,
      controller: backend.controller,
      workload: () => fleetWorkload(store, queue),
      logger,
      clock,
    }),
    audit: new AuditService(store, logger, options.auditActionsPerMinute),
    // A process that works no jobs leaves them to those that do: nothing to wake here.
    bulk: new BulkService(store, bulkJobs ?? { wake: () => {} }, {
      owner: hostId,
      leaseMs: options.leaseTtlMs,
    }),
    streams: new StreamService({
      store,
      hub: new StreamHub(events),
      observers,
      clock,
      settings: { ...DEFAULT_STREAM_SETTINGS, ...options.streams },
    }),
  };
}
