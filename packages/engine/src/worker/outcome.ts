import { runTimedOutError } from "@oah/core";
import type { RunOutcome } from "@oah/store";
import type { AbortReason } from "../abort";
import { RunFailure } from "../run-failure";

export type Settled = { ok: true; output: unknown } | { ok: false; error: unknown };

/**
 * The terminal status an execution writes, or null when it must write nothing
 * (fenced out, stopped by a shutdown that leaves the run to recovery, or parked). An abort
 * wins over what the executor returned or threw, since it is why the executor stopped.
 */
export function outcomeOf(
  settled: Settled,
  abort: AbortReason | undefined,
  timeoutMs: number,
): RunOutcome | null {
  switch (abort?.kind) {
    case "fenced":
    case "shutdown":
    case "parked":
      return null;
    case "cancel":
      return { status: "cancelled" };
    case "timeout":
      return { status: "timed_out", ...runTimedOutError(timeoutMs) };
  }
  if (settled.ok) return { status: "completed", output: settled.output };
  const { error } = settled;
  if (error instanceof RunFailure)
    return { status: "failed", errorCode: error.code, errorMessage: error.message };
  return {
    status: "failed",
    errorCode: "executor_failed",
    errorMessage: error instanceof Error ? error.message : String(error),
  };
}
