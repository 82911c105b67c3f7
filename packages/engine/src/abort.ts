/** Why an execution was aborted; decides the run's final status (or that nothing may be written). */
export type AbortReason =
  | { kind: "cancel" }
  | { kind: "timeout" }
  /** The claim lost its lock or its run: another owner may exist, so write nothing more. */
  | { kind: "fenced" }
  /** The host is shutting down; recovery decides what becomes of the run. */
  | { kind: "shutdown" }
  /** The run was parked waiting for a tool result: it is unfinished, and no longer this execution's. */
  | { kind: "parked" };

export function abortReasonOf(signal: AbortSignal): AbortReason | undefined {
  if (!signal.aborted) return undefined;
  const reason = signal.reason as AbortReason | undefined;
  return reason && typeof reason === "object" && "kind" in reason ? reason : { kind: "cancel" };
}
