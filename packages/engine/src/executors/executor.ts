import type { Run } from "@oah/contract";
import type { LiveEventType, OnInterrupt, RunEventType, StepKind } from "@oah/core";
import type { CarriedRun, Checkpoint, InterruptedStep, ModelCallUsage, RunMessage } from "@oah/store";

export type { CarriedRun, Checkpoint, InterruptedStep, RunMessage };

/** Fenced writes of one execution; each resolves false (or null) once the execution is fenced out. */
export interface RunJournal {
  event(type: RunEventType, data?: Record<string, unknown>): Promise<boolean>;
  /** A step begins; a command's says what recovery does if the execution dies while it runs. */
  startStep(kind: StepKind, name: string, options?: { onInterrupt?: OnInterrupt }): Promise<number | null>;
  /** The output so far of a running step; best effort, for watching it live. */
  updateStep(stepId: number, output: unknown): Promise<boolean>;
  /**
   * A step ends; with a checkpoint (docs/spec.md §7), what a later attempt goes on from once this
   * step is done, written with the step's end.
   */
  finishStep(
    stepId: number,
    end: {
      status: "completed" | "failed";
      output?: unknown;
      errorCode?: string;
      errorMessage?: string;
      /** A model call's tokens, counted to the run's workspace (docs/spec.md §4). */
      usage?: ModelCallUsage;
    },
    checkpoint?: Checkpoint,
  ): Promise<boolean>;
  /** A checkpoint on its own: after a step that has no row of its own (a sleep, an output), or at a wait. */
  checkpoint(checkpoint: Checkpoint): Promise<boolean>;
}

/**
 * Where this execution goes on from instead of the start: a parked wait whose result has come
 * (the `state` the executor gave waitForTool), or the last checkpoint of an earlier attempt (its
 * `state`, the `log` of every checkpoint's appends in order, and the step that attempt was in
 * when it died, which this one does again).
 */
export type Resumed =
  | { from: "park"; state: unknown; toolResult: unknown }
  | { from: "checkpoint"; state: unknown; log: unknown[]; interrupted: InterruptedStep | null };

export interface ExecutionContext {
  run: Run;
  /** Aborted on cancel, run timeout, fencing or shutdown; `signal.reason` is an AbortReason. */
  signal: AbortSignal;
  /** The run's workspace directory, created before the executor starts. */
  workspaceDir: string;
  journal: RunJournal;
  /** Where this execution goes on from; null for one from the start. */
  resumed: Resumed | null;
  /**
   * Waits for a client's result of the tool `name` (docs/spec.md §6). On a host that holds
   * waits, the run stays in `waiting_tool` in this execution and the call resolves with the
   * result. On one that parks them, `state` (what the executor needs to go on after the wait,
   * as JSON) is saved with the run and the call rejects: this execution ends, its slot is free,
   * and a later execution, on any host, calls the executor again with `resumed`.
   * Rejects too when the execution is aborted meanwhile.
   */
  waitForTool(name: string, state: unknown): Promise<unknown>;
  /** Runs the configured hooks of a tool event; hooks never fail the run. */
  fireHook(event: "tool.before" | "tool.after", detail: Record<string, unknown>): Promise<void>;
  /**
   * Runs one hook command (the `hook` step of a script), recorded like configured hooks, with its
   * policy if interrupted and, when it runs again after its execution died, the step it was.
   */
  runHookCommand(
    name: string,
    command: string,
    timeoutMs: number | undefined,
    interrupt: { onInterrupt: OnInterrupt; rerun: InterruptedStep | null },
  ): Promise<void>;
  /**
   * The session's run of this executor that this one goes on from (docs/spec.md §12, *The agent
   * executor*): the latest before it that completed, or that was cut short after a checkpoint.
   */
  previousRun(): Promise<CarriedRun | null>;
  /** A run of this session, as previousRun answers it: the one a conversation carried by reference names. */
  carriedRun(runId: string): Promise<CarriedRun | null>;
  /**
   * The messages sent to the run after the one with id `after` (0: from the first), in their order
   * (docs/spec.md §5, *Steering*): what a steered agent has not taken yet.
   */
  messages(after: number): Promise<RunMessage[]>;
  /**
   * Shows a live event on the run's streams at once, without storing it: a row per
   * token of a model's answer would swamp the store, and the stored event that ends the
   * call keeps the whole of it. Fire and forget; a lost live event never fails the run.
   */
  live(type: LiveEventType, data: Record<string, unknown>): void;
}

export interface ExecutionResult {
  output: unknown;
}

export interface Executor {
  execute(context: ExecutionContext): Promise<ExecutionResult>;
}
