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
   * Puts the run in `waiting_tool` until a client posts the result of the tool
   * `name`, and resolves with it (the run is `running` again). Rejects when the
   * execution is aborted meanwhile.
   */
  waitForTool(name: string): Promise<unknown>;
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
