import type { Claim } from "@oah/store";
import type { AbortReason } from "./abort";
import type { RunInterrupt } from "./worker/run-interrupt";

export interface ActiveRun {
  /** The store claim; its token is also the session lock's fencing token in the queue. */
  claim: Claim;
  sessionId: string;
  /** The workspace its session lock counts in (the queue's fair share). */
  workspaceId: string;
  controller: AbortController;
  /** Its stop at the next step boundary, which a later submission to its session may ask for. */
  interrupt: RunInterrupt;
}

/** The executions running on this host: what heartbeats cover and what cancels reach. */
export class ActiveRuns {
  private readonly runs = new Map<string, ActiveRun>();

  add(run: ActiveRun): void {
    this.runs.set(run.claim.runId, run);
  }

  delete(runId: string): void {
    this.runs.delete(runId);
  }

  list(): ActiveRun[] {
    return [...this.runs.values()];
  }

  get size(): number {
    return this.runs.size;
  }

  /** Aborts the run if it executes here; the first reason given is the one that counts. */
  abort(runId: string, reason: AbortReason): boolean {
    const run = this.runs.get(runId);
    if (!run || run.controller.signal.aborted) return false;
    run.controller.abort(reason);
    return true;
  }

  /** Asks the run, if it executes here, to stop at its next step boundary (docs/spec.md §5). */
  interrupt(runId: string): void {
    this.runs.get(runId)?.interrupt.request();
  }
}
