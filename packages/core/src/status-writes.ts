import { OahError } from "./error-codes";
import { ACTIVE_STATUSES, type RunStatus, TERMINAL_STATUSES, type TransitionKind } from "./run-status";

/** One status write of the stores: the statuses it moves a run from, and those it may set. */
export interface StatusWrite {
  kind: TransitionKind;
  from: readonly RunStatus[];
  to: readonly RunStatus[];
}

/**
 * Every status write the stores make (docs/spec.md §4, §7). Each store's statement for a write
 * takes its `from` statuses from here, so that what a write may do is the transition
 * table's, checked by a test: every pair of a write is allowed, and every allowed pair
 * but {@link UNWRITTEN_TRANSITIONS} is made by some write.
 */
export const STATUS_WRITES = {
  start: { kind: "execution", from: ["queued"], to: ["running"] },
  waitForTool: { kind: "execution", from: ["running"], to: ["waiting_tool"] },
  resumeWithToolResult: { kind: "execution", from: ["waiting_tool"], to: ["running"] },
  /** A parked wait: the execution saves its state and ends; the run stays unfinished, owned by nobody. */
  park: { kind: "execution", from: ["running"], to: ["waiting_tool"] },
  /** A parked run continued, with its tool result, by a new claim on any host. */
  resumeParked: { kind: "execution", from: ["waiting_tool"], to: ["running"] },
  /** A parked run ends where it is: cancelled, or past its deadline. */
  cancelParked: { kind: "execution", from: ["waiting_tool"], to: ["cancelled"] },
  timeOutParked: { kind: "execution", from: ["waiting_tool"], to: ["timed_out"] },
  finish: { kind: "execution", from: ACTIVE_STATUSES, to: TERMINAL_STATUSES },
  cancelQueued: { kind: "execution", from: ["queued"], to: ["cancelled"] },
  recoveryFail: { kind: "execution", from: ACTIVE_STATUSES, to: ["failed"] },
  recoveryCancel: { kind: "execution", from: ACTIVE_STATUSES, to: ["cancelled"] },
  recoveryRequeue: { kind: "requeue", from: ACTIVE_STATUSES, to: ["queued"] },
  manualRequeue: { kind: "requeue", from: ["failed", "cancelled", "timed_out"], to: ["queued"] },
} as const satisfies Record<string, StatusWrite>;

export type StatusWriteName = keyof typeof STATUS_WRITES;

/**
 * Allowed by docs/spec.md §4 and made by no write: a queued run never fails before it starts
 * (a run that cannot execute fails once started, with its reason recorded on it).
 */
export const UNWRITTEN_TRANSITIONS: readonly (readonly [RunStatus, RunStatus])[] = [["queued", "failed"]];

/** The one status a write sets, for the writes that set only one (all but `finish`). */
export function writeTarget(name: StatusWriteName): RunStatus {
  const [only, ...more] = STATUS_WRITES[name].to;
  if (only === undefined || more.length > 0) throw new Error(`${name} sets more than one status`);
  return only;
}

/**
 * The guard of a write whose target status comes from its caller (an execution's
 * outcome): a status the write may not set is refused before anything is written.
 */
export function requireWriteTarget(name: StatusWriteName, to: RunStatus): void {
  const write: StatusWrite = STATUS_WRITES[name];
  // Every status a write may set is allowed by the table (checked by the table test).
  if (!write.to.includes(to)) {
    throw new OahError(
      "invalid_run_transition",
      `${name} cannot set a run ${to}: it moves runs from ${write.from.join(" | ")} to ${write.to.join(" | ")}`,
    );
  }
}
