import type { Run } from "@oah/contract";
import type { LiveEventType, RunEventType, StepKind } from "@oah/core";

/** Fenced writes of one execution; each resolves false (or null) once the execution is fenced out. */
export interface RunJournal {
  event(type: RunEventType, data?: Record<string, unknown>): Promise<boolean>;
  startStep(kind: StepKind, name: string): Promise<number | null>;
  /** The output so far of a running step; best effort, for watching it live. */
  updateStep(stepId: number, output: unknown): Promise<boolean>;
  finishStep(
    stepId: number,
    end: { status: "completed" | "failed"; output?: unknown; errorCode?: string; errorMessage?: string },
  ): Promise<boolean>;
}

export interface ExecutionContext {
  run: Run;
  /** Aborted on cancel, run timeout, fencing or shutdown; `signal.reason` is an AbortReason. */
  signal: AbortSignal;
  /** The run's workspace directory, created before the executor starts. */
  workspaceDir: string;
  journal: RunJournal;
  /**
   * Set when this execution continues a parked run: what the executor saved when it parked
   * (the `state` it gave waitForTool), and the tool result it waited for. The executor goes on
   * from there instead of from the start. Null for an execution from the start.
   */
  resumed: { state: unknown; toolResult: unknown } | null;
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
  /** Runs one hook command (the `hook` step of a script), recorded like configured hooks. */
  runHookCommand(name: string, command: string, timeoutMs?: number): Promise<void>;
  /** The output of the session's latest completed run of this executor before this one (conversation history). */
  previousOutput(): Promise<unknown>;
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
