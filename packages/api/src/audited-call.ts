import type { AuditAction } from "@oah/core";
import type { AuditedCall } from "@oah/engine";

/** The most an entry's parameters take, as JSON in UTF-8: past it the log keeps their size and their start. */
export const AUDIT_PARAMS_MAX_BYTES = 8_192;
/** How much of parameters past the bound is kept: the first characters of their JSON. */
const TRUNCATED_HEAD_CHARS = 1_024;
/** The longest target kept (ids are at most 128 characters: a longer one is a refused call's). */
const TARGET_MAX_CHARS = 256;
/** The longest error message kept (a refusal may name a field of its input, however long). */
const MESSAGE_MAX_CHARS = 1_024;

/**
 * The fields of each action's input that the log keeps: what the caller chose to act on and how.
 * Nothing else a caller sends is kept (a tool's result is the client's data; a sign-in has no
 * parameters, whatever a caller adds to it), so that an entry is as large as its action, not as
 * its caller wishes: a refused call's input is not checked by its schema.
 */
const AUDITED_FIELDS: Record<AuditAction, readonly string[]> = {
  "run.requeue": ["runId", "requestedBy", "includeCancelled", "fromStart"],
  "run.requeue_many": ["runIds", "requestedBy", "includeCancelled", "fromStart"],
  "run.cancel": ["runId"],
  "run.interrupt": ["runId"],
  "run.tool_result": ["runId", "name"],
  "run.fork": ["runId", "fromStep"],
  // Its content is the caller's prompt: not kept, as a tool result's output is not.
  "run.message": ["runId"],
  "bulk.dry_run": ["action", "filter", "requestedBy", "includeCancelled", "fromStart"],
  "bulk.start": ["action", "filter", "requestedBy", "includeCancelled", "fromStart"],
  "bulk.abort": ["id"],
  "session.cancel_queued": ["sessionId", "fromPosition"],
  "jam.repair": ["kind", "sessionIds"],
  "host.cordon": ["hostId"],
  "host.uncordon": ["hostId"],
  "host.drain": ["hostId"],
  "fleet.rollout": ["requestedBy"],
  "console.sign_in": [],
  "console.sign_out": [],
};

/** The fields of an input that name what a call acts on, the most specific first. */
const TARGET_FIELDS = ["runId", "sessionId", "hostId", "id", "kind"] as const;

/** Parameters too large to keep whole: their size, and the start of their JSON. */
export interface TruncatedParams {
  truncated: true;
  /** Their size as JSON; null when they cannot be written as JSON at all (nested past any stack). */
  bytes: number | null;
  head: string;
}

/** Text as a store keeps it exactly: a lone surrogate (which PostgreSQL refuses) becomes U+FFFD. */
const wellFormed = (text: string) =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

/** The first `chars` characters of a text, never half of a surrogate pair. */
const headOf = (text: string, chars: number) => wellFormed(text.slice(0, chars));

/**
 * Parameters as the log keeps them: whole when their JSON takes AUDIT_PARAMS_MAX_BYTES or less,
 * else their size and the start of their JSON (docs/spec.md §13).
 */
export function boundedParams(params: Record<string, unknown> | null): unknown {
  if (params === null) return null;
  let json: string;
  try {
    json = JSON.stringify(params, (_key, value: unknown) =>
      typeof value === "string" ? wellFormed(value) : value,
    );
  } catch {
    // A refused call's input nested deeper than a stack: nothing of it can be shown.
    return { truncated: true, bytes: null, head: "" } satisfies TruncatedParams;
  }
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes <= AUDIT_PARAMS_MAX_BYTES) return JSON.parse(json) as unknown;
  return { truncated: true, bytes, head: headOf(json, TRUNCATED_HEAD_CHARS) } satisfies TruncatedParams;
}

/**
 * What the audit log keeps of a call: its target, read from its input, and the fields of its
 * input that matter for its action (AUDITED_FIELDS), bounded (boundedParams).
 */
export function auditedCall(action: AuditAction, input: unknown): AuditedCall {
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const named = TARGET_FIELDS.map((f) => fields[f]).find((v) => typeof v === "string");
  const runIds = fields.runIds;
  const target =
    typeof named === "string"
      ? headOf(named, TARGET_MAX_CHARS)
      : Array.isArray(runIds)
        ? `${runIds.length} run${runIds.length === 1 ? "" : "s"}`
        : null;
  const kept = AUDITED_FIELDS[action].filter((f) => Object.hasOwn(fields, f) && fields[f] !== undefined);
  const params =
    input === undefined || AUDITED_FIELDS[action].length === 0
      ? null
      : Object.fromEntries(kept.map((f) => [f, fields[f]]));
  return { action, target, params: boundedParams(params) };
}

/** An error message as the log keeps it: its first MESSAGE_MAX_CHARS characters. */
export const boundedMessage = (message: string): string => headOf(message, MESSAGE_MAX_CHARS);
