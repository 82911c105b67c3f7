import type { RunStatus } from "./run-status";

/**
 * What a submission does when its session has unfinished runs (docs/spec.md §5): go to the
 * tail (`enqueue`, the default and the FIFO guarantee), be refused (`reject`), stop the run that
 * executes and go to the tail (`interrupt`), or end every unfinished run and be the session's
 * only one (`replace`).
 */
export const IF_BUSY = ["enqueue", "reject", "interrupt", "replace"] as const;
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
}

export type BusyDecision =
  /** Written at the tail; `cancel`: the runs it ends, and why (each cancelled as a cancel would be). */
  | { admit: true; cancel: readonly string[]; reason: BusyCancelReason | null }
  /** Refused, nothing written: `holder` is the run that keeps the session busy. */
  | { admit: false; holder: string };

/**
 * What a submission under `policy` does to its session's unfinished runs, oldest first. A
 * parked run is the session's executing one too: it holds the session's turn.
 */
export function busyDecision(policy: IfBusy, unfinished: readonly UnfinishedRun[]): BusyDecision {
  const executing = unfinished.filter((r) => r.status !== "queued");
  switch (policy) {
    case "enqueue":
      return { admit: true, cancel: [], reason: null };
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
