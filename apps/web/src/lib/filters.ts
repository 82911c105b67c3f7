import type { ListStorageRunsInput } from "@oah/contract";
import { RECOVERY_STATES, RUN_ERROR_CODES, RUN_STATUSES } from "./constants";

type Status = (typeof RUN_STATUSES)[number];
type ErrorCode = (typeof RUN_ERROR_CODES)[number];
type RecoveryState = (typeof RECOVERY_STATES)[number];

/** The view's filters, kept in the URL under the API's own parameter names (lists comma-separated). */
export interface RunFilters {
  status: Status[];
  errorCode: ErrorCode[];
  recoveryState: RecoveryState[];
  sessionId: string;
  workspaceId: string;
  runId: string;
  limit: number;
}

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_LIMIT = 50;

export const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const WORKSPACE_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;
export const RUN_ID = /^run_[0-9A-HJKMNP-TV-Z]{26}$/;

export const EMPTY_FILTERS: RunFilters = {
  status: [],
  errorCode: [],
  recoveryState: [],
  sessionId: "",
  workspaceId: "",
  runId: "",
  limit: DEFAULT_LIMIT,
};

function listParam<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T[] {
  const values = (params.get(name) ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v): v is T => (allowed as readonly string[]).includes(v));
  // In the order of the allowed values, each once: one view, one URL.
  return allowed.filter((v) => values.includes(v));
}

export function parseFilters(params: URLSearchParams): RunFilters {
  const limit = Number(params.get("limit"));
  return {
    status: listParam(params, "status", RUN_STATUSES),
    errorCode: listParam(params, "errorCode", RUN_ERROR_CODES),
    recoveryState: listParam(params, "recoveryState", RECOVERY_STATES),
    sessionId: (params.get("sessionId") ?? "").trim(),
    workspaceId: (params.get("workspaceId") ?? "").trim(),
    runId: (params.get("runId") ?? "").trim(),
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
  };
}

/** The query string of a view; commas stay as they are, so that links read like the API's own. */
export function filtersToQuery(filters: RunFilters): string {
  const parts: string[] = [];
  const add = (name: string, value: string) => parts.push(`${name}=${encodeURIComponent(value)}`);
  if (filters.status.length) parts.push(`status=${filters.status.join(",")}`);
  if (filters.errorCode.length) parts.push(`errorCode=${filters.errorCode.join(",")}`);
  if (filters.recoveryState.length) parts.push(`recoveryState=${filters.recoveryState.join(",")}`);
  if (filters.sessionId) add("sessionId", filters.sessionId);
  if (filters.workspaceId) add("workspaceId", filters.workspaceId);
  if (filters.runId) add("runId", filters.runId);
  if (filters.limit !== DEFAULT_LIMIT) add("limit", String(filters.limit));
  return parts.length ? `?${parts.join("&")}` : "";
}

export function hasFilters(filters: RunFilters): boolean {
  return (
    filters.status.length > 0 ||
    filters.errorCode.length > 0 ||
    filters.recoveryState.length > 0 ||
    filters.sessionId !== "" ||
    filters.workspaceId !== "" ||
    filters.runId !== ""
  );
}

/** Problems with the text filters; a filter with a problem is not sent to the API. */
export function textFilterProblems(
  filters: RunFilters,
): Partial<Record<"sessionId" | "workspaceId" | "runId", string>> {
  const problems: Partial<Record<"sessionId" | "workspaceId" | "runId", string>> = {};
  if (filters.sessionId && !SESSION_ID.test(filters.sessionId)) {
    problems.sessionId = "1–128 characters of A–Z a–z 0–9 . _ : -";
  }
  if (filters.workspaceId && !WORKSPACE_ID.test(filters.workspaceId)) {
    problems.workspaceId = "1–64 characters of A–Z a–z 0–9 . _ -, not starting with a dot";
  }
  if (filters.runId && !RUN_ID.test(filters.runId)) problems.runId = "run_ followed by 26 ULID characters";
  return problems;
}

/** The admin.runs input of a view (without paging). */
export function filtersToInput(filters: RunFilters): Omit<ListStorageRunsInput, "limit" | "cursor"> {
  const problems = textFilterProblems(filters);
  return {
    ...(filters.status.length ? { status: filters.status } : {}),
    ...(filters.errorCode.length ? { errorCode: filters.errorCode } : {}),
    ...(filters.recoveryState.length ? { recoveryState: filters.recoveryState } : {}),
    ...(filters.sessionId && !problems.sessionId ? { sessionId: filters.sessionId } : {}),
    ...(filters.workspaceId && !problems.workspaceId ? { workspaceId: filters.workspaceId } : {}),
    ...(filters.runId && !problems.runId ? { runId: filters.runId } : {}),
  };
}
