import type { Run, RunSummary } from "@oah/contract";
import type { IfBusy, StepKind } from "@oah/core";

/** Observers of the engine's work (metrics, mostly); called synchronously, must not throw. */
export interface EngineObservers {
  /** A run was written; `stopped`: the session's runs its submission ended or asked to stop (ifBusy interrupt, replace). */
  runSubmitted?(event: { run: Run; stopped: number }): void;
  /**
   * A submission made no run: its busy session refused it (ifBusy reject: `session_busy`), or it
   * became a message to the session's executing agent run (ifBusy steer: `steered`).
   */
  submissionWithoutRun?(event: { ifBusy: IfBusy; outcome: "session_busy" | "steered" }): void;
  runStarted?(event: { run: Run; queueWaitMs: number }): void;
  runFinished?(event: { run: RunSummary; durationMs: number }): void;
  stepFinished?(event: {
    run: Run;
    kind: StepKind;
    name: string;
    status: "completed" | "failed";
    output: unknown;
    errorCode: string | null;
    durationMs: number;
  }): void;
  /**
   * An attempt went on from the run's last checkpoint: the completed steps (by kind) and model
   * tokens it does not spend again, and the kind of the step it does again (the one in flight
   * when the last attempt died), if any.
   */
  runResumed?(event: {
    run: Run;
    avoided: { steps: Partial<Record<StepKind, number>>; modelTokens: number };
    rerun: StepKind | null;
  }): void;
  /** A session claimed ahead was taken by its slot, put back, or none was found. */
  claimedAhead?(event: { outcome: "taken" | "put_back" | "empty" }): void;
  /** A stored event went out on a stream this long after it was written (its `at`). */
  eventStreamed?(event: { delayMs: number }): void;
  /** A model call waited this long for capacity under OAH_MODEL_LIMITS. */
  modelWaited?(event: { model: string; ms: number }): void;
  /** The model endpoint answered a call with 429. */
  modelThrottled?(event: { model: string }): void;
  /** A maintenance task ran here, was skipped (another host holds its lock), or failed. */
  maintenanceRan?(event: { task: string; outcome: "done" | "skipped" | "failed"; durationMs: number }): void;
}
