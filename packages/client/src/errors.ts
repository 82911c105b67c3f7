import type { Run } from "@oah/contract";
import { API_ERROR_STATUS, type ApiErrorCode, type RunStatus } from "@oah/core";

/** One problem of a refused input, as `invalid_request` names it: the field's path (dotted) and why. */
export interface ApiIssue {
  path: string;
  message: string;
}

export interface OahApiErrorInit {
  code: ApiErrorCode;
  status: number;
  message: string;
  issues?: ApiIssue[];
  runId?: string;
  body: unknown;
  method: string;
  url: string;
}

/**
 * The API answered with an error. `code` is the code of its envelope
 * `{"error":{"code","message","issues"?}}`; an answer that is not that envelope (a proxy's
 * page, an empty body) or that carries a code this client does not know is an
 * `internal_error`, with the answer as it came in `body`. `status` is always the HTTP status.
 */
export class OahApiError extends Error {
  override readonly name = "OahApiError";
  readonly code: ApiErrorCode;
  readonly status: number;
  /** What was wrong with the input, for `invalid_request`. */
  readonly issues: ApiIssue[] | undefined;
  /** The run the error is about where it is not the one asked for (`session_busy`: the run that holds the session). */
  readonly runId: string | undefined;
  /** The answer's body: the parsed JSON, or the text when it was not JSON. */
  readonly body: unknown;
  readonly method: string;
  readonly url: string;

  constructor(init: OahApiErrorInit) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.issues = init.issues;
    this.runId = init.runId;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
  }
}

/** Whether `error` is an error the API answered with; with `code`, one of that code. */
export function isOahApiError<C extends ApiErrorCode>(
  error: unknown,
  code?: C,
): error is OahApiError & { code: C } {
  return error instanceof OahApiError && (code === undefined || error.code === code);
}

/** The API could not be reached, or its answer not read: nothing came back to map (`cause` says why). */
export class OahNetworkError extends Error {
  override readonly name = "OahNetworkError";
  readonly method: string;
  readonly url: string;

  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.method = method;
    this.url = url;
  }
}

/** `wait` gave up: the run did not reach one of the statuses asked for in time. */
export class OahWaitTimeout extends Error {
  override readonly name = "OahWaitTimeout";
  readonly runId: string;
  readonly timeoutMs: number;
  readonly until: readonly RunStatus[];
  /** The run as last read, if any read came back. */
  readonly lastRun: Run | undefined;

  constructor(runId: string, timeoutMs: number, until: readonly RunStatus[], lastRun: Run | undefined) {
    super(
      `run ${runId} did not reach ${until.join(" or ")} within ${timeoutMs} ms` +
        (lastRun ? ` (last seen ${lastRun.status})` : ""),
    );
    this.runId = runId;
    this.timeoutMs = timeoutMs;
    this.until = until;
    this.lastRun = lastRun;
  }
}

function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === "string" && Object.hasOwn(API_ERROR_STATUS, code);
}

function issuesOf(value: unknown): ApiIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues = value.filter(
    (i): i is ApiIssue => typeof i?.path === "string" && typeof i?.message === "string",
  );
  return issues.length === value.length
    ? issues.map((i) => ({ path: i.path, message: i.message }))
    : undefined;
}

/** The text of an answer as JSON, or the text itself when it is not JSON. */
export function parseBody(text: string): { json: boolean; value: unknown } {
  if (text === "") return { json: false, value: text };
  try {
    return { json: true, value: JSON.parse(text) };
  } catch {
    return { json: false, value: text };
  }
}

/** The error an answer of status `status` (not 2xx) with body `text` stands for. */
export function errorFromAnswer(status: number, text: string, request: { method: string; url: string }) {
  const { value: body } = parseBody(text);
  const envelope =
    typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  const { code, message, issues, runId } = (
    typeof envelope === "object" && envelope !== null ? envelope : {}
  ) as {
    code?: unknown;
    message?: unknown;
    issues?: unknown;
    runId?: unknown;
  };
  if (isApiErrorCode(code)) {
    return new OahApiError({
      ...request,
      code,
      status,
      message: typeof message === "string" ? message : code,
      issues: issuesOf(issues),
      ...(typeof runId === "string" ? { runId } : {}),
      body,
    });
  }
  const said = typeof code === "string" ? ` with an error code this client does not know (${code})` : "";
  return new OahApiError({
    ...request,
    code: "internal_error",
    status,
    message: `the API answered ${status}${said}${typeof message === "string" ? `: ${message}` : ""}`,
    body,
  });
}
