import type { AuditAction } from "@oah/core";
import type { AuditedCall } from "@oah/engine";

/** The fields of an input that name what a call acts on, the most specific first. */
const TARGET_FIELDS = ["runId", "sessionId", "hostId", "id", "kind"] as const;

/**
 * What the audit log keeps of a call: its target, read from its input, and its parameters as
 * the caller sent them, but for a tool's result (the client's data, not an operator's choice).
 */
export function auditedCall(action: AuditAction, input: unknown): AuditedCall {
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const named = TARGET_FIELDS.map((f) => fields[f]).find((v) => typeof v === "string");
  const runIds = fields.runIds;
  const target =
    typeof named === "string"
      ? named
      : Array.isArray(runIds)
        ? `${runIds.length} run${runIds.length === 1 ? "" : "s"}`
        : null;
  const { output: _result, ...params } = fields;
  return { action, target, params: input === undefined ? null : params };
}
