import { API_ERROR_STATUS, type ApiErrorCode, OahError } from "@oah/core";
import { TRPCError } from "@trpc/server";

export interface ApiErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    issues?: { path: string; message: string }[];
    /** The run the error is about, where another than the one asked for (`session_busy`: the run that holds the session). */
    runId?: string;
  };
}

export interface ApiError {
  status: number;
  body: ApiErrorBody;
}

interface Issue {
  path?: readonly (PropertyKey | { key: PropertyKey })[];
  message: string;
}

function hasIssues(value: unknown): value is { issues: Issue[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}

function pathOf(issue: Issue): string {
  return (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
}

const TRPC_CODE_TO_API: Partial<Record<TRPCError["code"], ApiErrorCode>> = {
  PARSE_ERROR: "invalid_json",
  BAD_REQUEST: "invalid_request",
  UNAUTHORIZED: "unauthorized",
  NOT_FOUND: "not_found",
  METHOD_NOT_SUPPORTED: "method_not_allowed",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
};

function body(
  code: ApiErrorCode,
  message: string,
  issues?: { path: string; message: string }[],
  runId?: unknown,
): ApiError {
  return {
    status: API_ERROR_STATUS[code],
    body: {
      error: {
        code,
        message,
        ...(issues ? { issues } : {}),
        ...(typeof runId === "string" ? { runId } : {}),
      },
    },
  };
}

/**
 * The one mapping from anything thrown to the API's error envelope, used by the
 * HTTP routes and by tRPC's error formatter. Unknown errors never leak details.
 */
export function toApiError(error: unknown): ApiError {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof OahError)
    return body(cause.code, cause.message, cause.details?.issues as never, cause.details?.runId);
  if (hasIssues(cause)) {
    const issues = cause.issues.map((i) => ({ path: pathOf(i), message: i.message }));
    const message = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
    return body("invalid_request", message || "invalid input", issues);
  }
  if (error instanceof TRPCError) {
    const code = TRPC_CODE_TO_API[error.code];
    if (code) return body(code, error.message);
  }
  return body("internal_error", "internal error");
}

const STATUS_TO_TRPC: Record<number, TRPCError["code"]> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

/** A domain error as the TRPCError of the matching status, keeping it as the cause. */
export function toTrpcError(error: OahError): TRPCError {
  return new TRPCError({
    code: STATUS_TO_TRPC[error.status] ?? "INTERNAL_SERVER_ERROR",
    message: error.message,
    cause: error,
  });
}

/** When a refused caller may come back, in seconds (its `Retry-After`): for the refusals that say. */
export function retryAfterOf(error: unknown): number | null {
  const cause = error instanceof TRPCError ? error.cause : error;
  const seconds = cause instanceof OahError ? cause.details?.retryAfterSeconds : undefined;
  return typeof seconds === "number" ? seconds : null;
}
