import type { RunStatus } from "./run-status";

/**
 * What a submission does when its session has unfinished runs (docs/spec.md §5): go to the
 * tail (`enqueue`, the default and the FIFO guarantee), be refused (`reject`), stop the run that
 * executes and go to the tail (`interrupt`), end every unfinished run and be the session's
 * only one (`replace`), or, an agent's prompt, join the agent run that executes as a message
 * instead of being a run of its own (`steer`).
 */
export const IF_BUSY = ["enqueue", "reject", "interrupt", "replace", "steer"] as const;
export type IfBusy = (typeof IF_BUSY)[number];

/** Why a run a later submission ended was cancelled: its `errorCode`. */
export const BUSY_CANCEL_REASONS = ["interrupted", "replaced"] as const;
export type BusyCancelReason = (typeof BUSY_CANCEL_REASONS)[number];

/** An unfinished run of the session, as the submission finds it under the session's lock. */
export interface UnfinishedRun {
  id: string;
  status: RunStatus;
  /** Parked in `waiting_tool`: nobody executes it. */
  parked: boolean;
  /** Its executor: only an agent takes messages. */
  executor: string;
  /** Its cancel was requested (by a caller, or by an earlier submission's interrupt): it is stopping. */
  stopping: boolean;
}

export type BusyDecision =
  /** Written at the tail; `cancel`: the runs it ends, and why (each cancelled as a cancel would be). */
  | { admit: true; cancel: readonly string[]; reason: BusyCancelReason | null }
  /** Refused, nothing written: `holder` is the run that keeps the session busy. */
  | { admit: false; holder: string }
  /** No run written: the submission's prompt is a message to `runId`, the agent run that executes. */
  | { steer: string };

/**
 * What a submission of `executor` under `policy` does to its session's unfinished runs, oldest
 * first. A parked run is the session's executing one too: it holds the session's turn.
 */
export function busyDecision(
  policy: IfBusy,
  unfinished: readonly UnfinishedRun[],
  executor: string,
): BusyDecision {
  const executing = unfinished.filter((r) => r.status !== "queued");
  switch (policy) {
    case "enqueue":
      return { admit: true, cancel: [], reason: null };
    case "steer": {
      // Only an agent's prompt, into an agent that goes on: anything else waits its turn at the tail.
      const head = executing[0];
      return executor === "agent" && head?.executor === "agent" && !head.stopping
        ? { steer: head.id }
        : { admit: true, cancel: [], reason: null };
    }
    case "reject": {
      const holder = executing[0] ?? unfinished[0];
      return holder ? { admit: false, holder: holder.id } : { admit: true, cancel: [], reason: null };
    }
    case "interrupt":
      return { admit: true, cancel: executing.map((r) => r.id), reason: "interrupted" };
    case "replace":
      return { admit: true, cancel: unfinished.map((r) => r.id), reason: "replaced" };
  }
}
