import type { RunSummary } from "@oah/contract";

export const CSV_COLUMNS = [
  "id",
  "sessionId",
  "seq",
  "workspaceId",
  "priority",
  "status",
  "errorCode",
  "errorMessage",
  "recoveryState",
  "recoveryReason",
  "attempt",
  "recoveryAttempts",
  "manualRequeueCount",
  "createdAt",
  "startedAt",
  "heartbeatAt",
  "endedAt",
  "workerId",
  "parentRunId",
] as const;

/** One CSV field (RFC 4180); a leading formula character is defused, as spreadsheets would run it. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === "string") text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(run: RunSummary): string {
  const recovery = run.metadata?.recovery;
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    id: run.id,
    sessionId: run.sessionId,
    seq: run.seq,
    workspaceId: run.workspaceId,
    priority: run.priority,
    status: run.status,
    errorCode: run.errorCode,
    errorMessage: run.errorMessage,
    recoveryState: run.recoveryState,
    recoveryReason: recovery?.reason ?? null,
    attempt: run.attempt,
    recoveryAttempts: run.metadata?.recoveryAttempts ?? null,
    manualRequeueCount: recovery?.manualRequeueCount ?? null,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    heartbeatAt: run.heartbeatAt,
    endedAt: run.endedAt,
    workerId: run.workerId,
    parentRunId: run.parentRunId,
  };
  return `${CSV_COLUMNS.map((c) => csvField(values[c])).join(",")}\r\n`;
}
