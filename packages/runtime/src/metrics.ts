import type { FleetWorkload, JamCounts, SlotSnapshot } from "@oah/contract";
import type { CommandsAvailability } from "@oah/core";
import type { EngineObservers } from "@oah/engine";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export interface Metrics {
  registry: Registry;
  observers: EngineObservers;
  httpRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800];

/** What a process reports of itself beside its counters: its slots, its open streams, the fleet's workload. */
export interface MetricSources {
  slots: () => SlotSnapshot[];
  openStreams?: () => number;
  /** The fleet's parked runs and per-workspace load; an API process reports them, a worker host does not. */
  workload?: () => Promise<FleetWorkload>;
  /** The jammed sessions of each kind, fleet-wide (null before the engine is up); an API process reports them. */
  jams?: () => Promise<JamCounts | null>;
  /** Whether this host runs commands of runs (null before its runtime is up). */
  commands?: () => CommandsAvailability | null;
  /**
   * The workspaces that get a label of their own in per-workspace counters (those the
   * configuration names, and `default`); any other counts as `other`, so that labels stay few.
   */
  namedWorkspaces?: readonly string[];
}

/**
 * The fleet's workload as gauges, read from the store and the queue when scraped: they are the
 * fleet's figures, not this process's, so only API processes report them.
 */
function workloadGauges(registry: Registry, workload: () => Promise<FleetWorkload>): void {
  let reading: Promise<FleetWorkload> | null = null;
  // The gauges of one scrape are collected at once: they share one read.
  const read = () => {
    reading ??= workload().finally(() => {
      reading = null;
    });
    return reading;
  };
  new Gauge({
    name: "oah_parked_runs",
    help: "Runs parked in waiting_tool across the fleet: they hold no slot",
    registers: [registry],
    async collect() {
      this.set((await read()).parkedRuns);
    },
  });
  const perWorkspace = (
    name: string,
    help: string,
    figure: "readySessions" | "executingRuns" | "parkedRuns",
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["workspace"],
      registers: [registry],
      async collect() {
        const { workspaces } = await read();
        this.reset();
        for (const w of workspaces) this.set({ workspace: w.workspaceId }, w[figure]);
      },
    });
  perWorkspace(
    "oah_workspace_ready_sessions",
    "Sessions with a run waiting for a slot, by workspace",
    "readySessions",
  );
  perWorkspace("oah_workspace_executing_runs", "Runs holding a slot, by workspace", "executingRuns");
  perWorkspace("oah_workspace_parked_runs", "Runs parked in waiting_tool, by workspace", "parkedRuns");
}

/** The jammed sessions of each kind (docs/spec.md §7), scanned when scraped: the fleet's figure, reported by API processes. */
function jamGauge(registry: Registry, jams: () => Promise<JamCounts | null>): void {
  new Gauge({
    name: "oah_jammed_sessions",
    help: "Sessions holding a jam of each kind (orphan_lock, stale_ready, lost_run, lost_wake, stale_active)",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      const counts = await jams();
      this.reset();
      for (const [kind, n] of Object.entries(counts ?? {})) this.set({ kind }, n);
    },
  });
}

/** Prometheus metrics of one process: runs, queue wait, workers and HTTP; on an API process, the fleet's workload. */
export function createMetrics({
  slots,
  openStreams = () => 0,
  workload,
  jams,
  commands = () => null,
  namedWorkspaces = ["default"],
}: MetricSources): Metrics {
  const named = new Set(namedWorkspaces);
  const workspaceLabel = (workspaceId: string) => (named.has(workspaceId) ? workspaceId : "other");
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "oah_process_" });
  if (workload) workloadGauges(registry, workload);
  if (jams) jamGauge(registry, jams);
  const submitted = new Counter({
    name: "oah_runs_submitted_total",
    help: "Runs accepted",
    registers: [registry],
  });
  const started = new Counter({
    name: "oah_runs_started_total",
    help: "Executions started",
    registers: [registry],
  });
  const finished = new Counter({
    name: "oah_runs_finished_total",
    help: "Runs ended by this host, by final status",
    labelNames: ["status"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "oah_run_duration_seconds",
    help: "Execution time of runs ended by this host",
    labelNames: ["status"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: "oah_queue_wait_seconds",
    help: "Time from (re)queueing to start",
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [registry],
  });
  new Gauge({
    name: "oah_workers",
    help: "Workers of this host by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const slot of slots()) this.inc({ state: slot.state });
    },
  });
  new Gauge({
    name: "oah_commands_available",
    help: "1 when this host runs commands of runs (shell and hook steps, the agent's shell tool); 0 when not, labelled with why (shell_disabled, commands_unavailable)",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      const now = commands();
      this.reset();
      if (now) this.set({ reason: now.available ? "" : now.code }, now.available ? 1 : 0);
    },
  });
  new Gauge({
    name: "oah_event_streams_open",
    help: "Event streams (SSE and tRPC subscriptions) this process serves now",
    registers: [registry],
    collect() {
      this.set(openStreams());
    },
  });
  const streamDelay = new Histogram({
    name: "oah_event_stream_delay_seconds",
    help: "Time from an event's writing (on whichever host) to its sending on a stream of this process",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const claimedAhead = new Counter({
    name: "oah_claims_ahead_total",
    help: "Sessions claimed ahead by slots whose runs are short, by outcome (taken, put_back, empty)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const maintenanceRuns = new Counter({
    name: "oah_maintenance_runs_total",
    help: "Maintenance tasks run by this host, by task and outcome (done, skipped: another host held its lock, failed)",
    labelNames: ["task", "outcome"],
    registers: [registry],
  });
  const maintenanceDuration = new Histogram({
    name: "oah_maintenance_duration_seconds",
    help: "Time of the maintenance tasks this host ran, by task",
    labelNames: ["task"],
    buckets: [0.005, 0.05, 0.5, 5, 60],
    registers: [registry],
  });
  const submissions = new Counter({
    name: "oah_submissions_total",
    help: "Submissions by their busy-session policy (ifBusy) and what it did: queued, stopped_others (interrupted or replaced the session's runs), session_busy (refused), steered (a message to the executing agent run)",
    labelNames: ["policy", "outcome"],
    registers: [registry],
  });
  const modelCalls = new Counter({
    name: "oah_model_calls_total",
    help: "Model calls completed on this host, by the run's workspace (those configured; any other as other)",
    labelNames: ["workspace"],
    registers: [registry],
  });
  const modelTokens = new Counter({
    name: "oah_model_tokens_total",
    help: "Model tokens spent by calls completed on this host, by the run's workspace and kind (prompt, completion)",
    labelNames: ["workspace", "kind"],
    registers: [registry],
  });
  const stepsResumed = new Counter({
    name: "oah_steps_resumed_total",
    help: "Completed steps that attempts going on from a checkpoint did not execute again, by step kind",
    labelNames: ["kind"],
    registers: [registry],
  });
  const stepsRerun = new Counter({
    name: "oah_steps_rerun_total",
    help: "Steps in flight when an attempt died, executed again by the attempt that went on from its checkpoint, by step kind",
    labelNames: ["kind"],
    registers: [registry],
  });
  const tokensSaved = new Counter({
    name: "oah_model_tokens_saved_total",
    help: "Model tokens of completed model calls that attempts going on from a checkpoint did not spend again",
    registers: [registry],
  });
  const modelWaits = new Histogram({
    name: "oah_model_limit_wait_seconds",
    help: "Waits of model calls for capacity under OAH_MODEL_LIMITS on this host, by model",
    labelNames: ["model"],
    buckets: [0.01, 0.1, 0.5, 2, 10, 60, 300],
    registers: [registry],
  });
  const modelThrottled = new Counter({
    name: "oah_model_throttled_total",
    help: "Model calls of this host the model endpoint answered with 429, by model",
    labelNames: ["model"],
    registers: [registry],
  });
  const http = new Histogram({
    name: "oah_http_request_duration_seconds",
    help: "HTTP requests by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  return {
    registry,
    observers: {
      runSubmitted: ({ run, stopped }) => {
        submitted.inc();
        submissions.inc({ policy: run.ifBusy, outcome: stopped > 0 ? "stopped_others" : "queued" });
      },
      submissionWithoutRun: ({ ifBusy, outcome }) => submissions.inc({ policy: ifBusy, outcome }),
      stepFinished: ({ run, kind, status, output }) => {
        if (kind !== "model" || status !== "completed") return;
        const workspace = workspaceLabel(run.workspaceId);
        const usage = (output as { usage?: { promptTokens?: number; completionTokens?: number } | null })
          ?.usage;
        modelCalls.inc({ workspace });
        modelTokens.inc({ workspace, kind: "prompt" }, usage?.promptTokens ?? 0);
        modelTokens.inc({ workspace, kind: "completion" }, usage?.completionTokens ?? 0);
      },
      runStarted: ({ queueWaitMs }) => {
        started.inc();
        queueWait.observe(queueWaitMs / 1000);
      },
      runFinished: ({ run, durationMs }) => {
        finished.inc({ status: run.status });
        duration.observe({ status: run.status }, durationMs / 1000);
      },
      runResumed: ({ avoided, rerun }) => {
        for (const [kind, count] of Object.entries(avoided.steps))
          if (count) stepsResumed.inc({ kind }, count);
        if (rerun) stepsRerun.inc({ kind: rerun });
        if (avoided.modelTokens > 0) tokensSaved.inc(avoided.modelTokens);
      },
      claimedAhead: ({ outcome }) => claimedAhead.inc({ outcome }),
      eventStreamed: ({ delayMs }) => streamDelay.observe(delayMs / 1000),
      modelWaited: ({ model, ms }) => modelWaits.observe({ model }, ms / 1000),
      modelThrottled: ({ model }) => modelThrottled.inc({ model }),
      maintenanceRan: ({ task, outcome, durationMs }) => {
        maintenanceRuns.inc({ task, outcome });
        if (outcome !== "skipped") maintenanceDuration.observe({ task }, durationMs / 1000);
      },
    },
    httpRequest: (labels, seconds) => http.observe({ ...labels, status: String(labels.status) }, seconds),
  };
}
