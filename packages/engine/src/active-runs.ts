import type { Claim } from "@oah/store";
import type { AbortReason } from "./abort";

export interface ActiveRun {
  /** The store claim; its token is also the session lock's fencing token in the queue. */
  claim: Claim;
  sessionId: string;
  /** The workspace its session lock counts in (the queue's fair share). */
  workspaceId: string;
  controller: AbortController;
  /** Set while the run waits for a tool result: called when one may have arrived. */
  toolResultArrived?: () => void;
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

  /** Tells a run waiting for a tool result here that one may have arrived. */
  notifyToolResult(runId: string): void {
    this.runs.get(runId)?.toolResultArrived?.();
  }

  get(runId: string): ActiveRun | undefined {
    return this.runs.get(runId);
  }

  /** Aborts the run if it executes here; the first reason given is the one that counts. */
  abort(runId: string, reason: AbortReason): boolean {
    const run = this.runs.get(runId);
    if (!run || run.controller.signal.aborted) return false;
    run.controller.abort(reason);
    return true;
  }
}
