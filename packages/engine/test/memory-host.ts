import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonValue, Run, ScriptInput } from "@oah/contract";
import { type Backend, type EventBus, localBackend } from "@oah/coordination";
import { claimAheadPolicy, DEFAULT_POOL_SIZING, type IfBusy, type RunStatus, type WaitMode } from "@oah/core";
import type { RunStore, StartResult } from "@oah/store";
import { createMemoryStore } from "@oah/testing";
import {
  AgentExecutor,
  type Clock,
  createEngine,
  type EngineOptions,
  type EventStreamSettings,
  type ExecutionContext,
  type ExecutionResult,
  type Executor,
  type MaintenanceSettings,
  type ModelEndpoint,
  NoCommands,
  ScriptExecutor,
  silentLogger,
  systemClock,
} from "../src";
import type { MaintenanceHost } from "../src/maintenance/task";
import type { ManualClock } from "./manual-clock";

/** The tool a gated run waits for: the test lets the run go on by delivering its result. */
export const GATE = "gate";

export interface Execution {
  runId: string;
  sessionId: string;
  seq: number;
}

/** A store, with every start it answered; a test may replace its operations to make faults. */
export type WatchedStore = { -readonly [K in keyof RunStore]: RunStore[K] } & {
  readonly starts: { runId: string; kind: StartResult["kind"] }[];
};

function watched(store: RunStore): WatchedStore {
  const starts: WatchedStore["starts"] = [];
  return {
    ...store,
    starts,
    async startRun(claim, workerId) {
      const result = await store.startRun(claim, workerId);
      starts.push({ runId: claim.runId, kind: result.kind });
      return result;
    },
  };
}

/** No model endpoint: a model step fails. */
const NO_MODEL: ModelEndpoint = { baseUrl: undefined, model: "none", apiKey: undefined, timeoutMs: 1_000 };

/** The commands of a host with OAH_SHELL=off. */
const SHELL_OFF = new NoCommands({ available: false, code: "shell_disabled", reason: "OAH_SHELL=off" });

/**
 * The script executor (sleep, output, wait_tool, fail and model steps: no command),
 * recording which runs it executes, how many at once, and how many of one session at once.
 */
export class RecordingExecutor implements Executor {
  readonly executions: Execution[] = [];
  private readonly inFlight = new Map<string, number>();
  maxInFlight = 0;
  maxInFlightPerSession = 0;
  private readonly script: ScriptExecutor;

  constructor(model: ModelEndpoint) {
    this.script = new ScriptExecutor({
      toolTimeoutMs: 10_000,
      commands: SHELL_OFF,
      shellEnv: () => ({}),
      model,
    });
  }

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const { id, sessionId, seq } = context.run;
    this.executions.push({ runId: id, sessionId, seq });
    const mine = (this.inFlight.get(sessionId) ?? 0) + 1;
    this.inFlight.set(sessionId, mine);
    this.maxInFlightPerSession = Math.max(this.maxInFlightPerSession, mine);
    const all = [...this.inFlight.values()].reduce((a, b) => a + b, 0);
    this.maxInFlight = Math.max(this.maxInFlight, all);
    try {
      return await this.script.execute(context);
    } finally {
      this.inFlight.set(sessionId, this.inFlight.get(sessionId)! - 1);
    }
  }

  /** The runs of a session in the order they were executed. */
  order(sessionId: string): string[] {
    return this.executions.filter((e) => e.sessionId === sessionId).map((e) => e.runId);
  }
}

export interface MemoryHostOptions {
  pool?: Partial<EngineOptions["pool"] & object>;
  recovery?: Partial<MaintenanceSettings>;
  /** The event bus, in place of the local backend's. */
  events?: EventBus;
  streams?: Partial<EventStreamSettings>;
  /** The endpoint of model steps and of the agent executor (without its shell tool); none by default. */
  model?: ModelEndpoint;
  /**
   * How runs wait for a tool result; `hold` by default here, since most tests use gated runs to
   * keep slots busy.
   */
  waitMode?: WaitMode;
  /** The engine's and the store's time; the system clock by default. */
  clock?: ManualClock;
  /**
   * The store of a host before this one (this host takes its place, as after a crash: it does
   * not close it); a store of its own by default.
   */
  store?: RunStore;
  /** Whether executions checkpoint their steps (OAH_CHECKPOINTS); on by default. */
  checkpoints?: boolean;
  /** How long an interrupted run may go on to its next step boundary (OAH_INTERRUPT_GRACE_MS). */
  interruptGraceMs?: number;
}

/**
 * One engine in this process on the SQL store over SQLite in memory and the local backend of the
 * embedded mode: no database server, no Redis, no child process. The store's clock is the
 * engine's, shifted by `skewMs`. On a manual clock, time passes for the engine only as the test
 * advances it.
 */
export function createMemoryHost(options: MemoryHostOptions = {}) {
  let skewMs = 0;
  const clock: Clock = options.clock ?? systemClock;
  const store = watched(options.store ?? createMemoryStore({ now: () => clock.now() + skewMs }));
  const local = localBackend({ lockTtlMs: 30_000 });
  const backend: Backend = options.events ? { ...local, events: options.events } : local;
  const { queue, events, leases, orders } = backend;
  const model = options.model ?? NO_MODEL;
  const executor = new RecordingExecutor(model);
  const agent = new AgentExecutor({
    toolTimeoutMs: 10_000,
    commands: SHELL_OFF,
    shellEnv: () => ({}),
    model,
  });
  const hostId = "memory-host";
  const recovery: MaintenanceSettings = {
    strategy: "requeue_running",
    maxAttempts: 3,
    // Maintenance only at start: the tests run the tasks themselves when they want them.
    exclusiveOwner: true,
    staleAfterMs: 30_000,
    scanIntervalMs: 60_000,
    auditRetentionMs: 0,
    ...options.recovery,
  };
  const pool: EngineOptions["pool"] = {
    min: 2,
    max: 2,
    sizing: DEFAULT_POOL_SIZING,
    hysteresis: { upSampleWindow: 1, downSampleWindow: 1, upCooldownMs: 0, downCooldownMs: 0 },
    scaleIntervalMs: 10,
    processKind: "embedded",
    ...options.pool,
  };
  const engine = createEngine({
    hostId,
    clock,
    store,
    backend,
    streams: options.streams,
    executors: new Map<string, Executor>([
      ["script", executor],
      ["agent", agent],
    ]),
    logger: silentLogger,
    pool,
    // Nothing is written there: no step of these runs runs a command.
    workspaceRoot: join(tmpdir(), "oah-memory-host-workspaces"),
    commands: SHELL_OFF.why,
    leaseTtlMs: 30_000,
    liveness: null,
    runTimeoutMs: 60_000,
    bulkRunsPerSecond: 1_000,
    auditActionsPerMinute: 60,
    waitMode: options.waitMode ?? "hold",
    ...(options.checkpoints === undefined ? {} : { checkpoints: options.checkpoints }),
    ...(options.interruptGraceMs === undefined ? {} : { interruptGraceMs: options.interruptGraceMs }),
    heartbeatIntervalMs: 50,
    claimAhead: claimAheadPolicy(0),
    drainTimeoutMs: 2_000,
    recovery,
  });
  const { lifecycle, service, fleet, streams } = engine;
  /** What the maintenance tasks use of this host. */
  const maintenanceHost: MaintenanceHost = { hostId, clock, store, queue, leases, logger: silentLogger };

  /** A script run of these steps in the session, submitted with `ifBusy` (enqueue) and `timeoutMs` (the host's). */
  const script = async (
    sessionId: string,
    steps: ScriptInput["steps"],
    options: { ifBusy?: IfBusy; timeoutMs?: number } = {},
  ) => {
    const { run } = await service.submit({
      sessionId,
      executor: "script",
      input: { steps },
      priority: "normal",
      workspaceId: "default",
      ifBusy: options.ifBusy ?? "enqueue",
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    return run;
  };

  return {
    store,
    queue,
    events,
    executor,
    lifecycle,
    service,
    fleet,
    streams,
    orders,
    recovery,
    maintenanceHost,
    /** Shifts the store's clock: runs created meanwhile look submitted that much earlier. */
    skewClock(ms: number) {
      skewMs = ms;
    },
    /** A script run of the session; `gated`, it waits for the GATE tool's result before its output step. */
    submit(sessionId: string, output: JsonValue, extra: { gated?: boolean; sleepMs?: number } = {}) {
      const steps: ScriptInput["steps"] = [];
      if (extra.sleepMs) steps.push({ type: "sleep", ms: extra.sleepMs });
      if (extra.gated) steps.push({ type: "wait_tool", name: GATE });
      steps.push({ type: "output", value: output });
      return script(sessionId, steps);
    },
    script,
    /** Lets a gated run that waits for its gate go on. */
    async open(run: Run) {
      await service.submitToolResult(run.id, GATE, { opened: true });
    },
    async status(run: Run): Promise<RunStatus | undefined> {
      return (await store.getRun(run.id))?.status;
    },
    async statuses(runs: readonly Run[]): Promise<(RunStatus | undefined)[]> {
      return Promise.all(runs.map(async (r) => (await store.getRun(r.id))?.status));
    },
    /** The id of the run's first event of this type (event ids grow with time across runs). */
    async eventId(run: Run, type: string): Promise<number | undefined> {
      const events = await store.listRunEvents(run.id, { limit: 1_000 });
      return events.find((e) => e.type === type)?.id;
    },
    async eventTypes(run: Run): Promise<string[]> {
      return (await store.listRunEvents(run.id, { limit: 1_000 })).map((e) => e.type);
    },
    async stop() {
      const stopping = lifecycle.stop();
      // What is still in hand waits out the drain timeout: time passes for it.
      await (options.clock ? options.clock.advanceUntil(stopping, 100) : stopping);
      await backend.close();
      if (!options.store) await store.close();
    },
  };
}

export type MemoryHost = ReturnType<typeof createMemoryHost>;
