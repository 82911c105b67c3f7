import type { Claim } from "@oah/store";
import type { AbortReason } from "./abort";

export interface ActiveRun {
  /** The store claim; its token is also the session lock's fencing token in the queue. */
  claim: Claim;
  sessionId: string;
  /** The workspace its session lock counts in (the queue's fair share). */
  workspaceId: string;
  controller: AbortController;
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
}
