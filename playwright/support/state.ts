import { readFileSync } from "node:fs";

/** What the global setup hands to the tests (through a JSON file named by OAH_E2E_STATE). */
export interface E2EState {
  apiUrl: string;
  consoleUrl: string;
  /** The deployment's shared environment (database, Redis prefix, data directory, timings). */
  env: Record<string, string>;
  runs: {
    /** Quarantined by real recovery (max_attempts_exhausted); succeed on their 4th execution. */
    killerA: string;
    killerB: string;
    /**
     * One dead-letter group of two runs (one session, workspace `nightly-import`), quarantined as
     * the killers were; both succeed once requeued.
     */
    deadLetters: string[];
    /**
     * Waiting for a tool, held (OAH_WAIT_MODE=hold), when its sandbox was killed: requeued by
     * recovery into the same wait (parked there), then answered and completed.
     */
    waiting: string;
    /**
     * Quarantined with step_interrupted: its command (onInterrupt: fail) was in flight when its
     * sandbox was killed. No test requeues it: the quarantined view always has a run.
     */
    interrupted: string;
    /** Parked waiting for its tool result (the default): in waiting_tool, held by no worker. */
    parked: string;
    /** Killed its sandbox once, was requeued by recovery, then completed. */
    flaky: string;
    /**
     * Killed its sandbox once during its third step, after two completed shell steps: recovery
     * requeued it, its second attempt resumed after them (`run.resumed`) and completed.
     */
    durable: string;
    /**
     * Killed its sandbox on each of three executions during its second step, after a completed
     * shell step: quarantined with its checkpoints (attempts 2 and 3 resumed); succeeds once requeued.
     */
    durableQuarantined: string;
    completed: string[];
    /** Failed without recovery's involvement: not eligible for a manual requeue. */
    plainFailed: string;
    toolTimedOut: string;
    timedOut: string[];
    cancelled: string;
  };
}

export function readState(): E2EState {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the global setup for the test workers
  const file = process.env.OAH_E2E_STATE;
  if (!file)
    throw new Error("OAH_E2E_STATE is not set: run the tests through playwright/playwright.config.ts");
  return JSON.parse(readFileSync(file, "utf8")) as E2EState;
}
