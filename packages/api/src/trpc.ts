import { findJsonProblem } from "@oah/contract";
import { OahError } from "@oah/core";
import type { FleetService, RunService, StreamService } from "@oah/engine";
import { initTRPC } from "@trpc/server";
import { toApiError, toTrpcError } from "./errors";

/** How often an idle event stream gets a keep-alive comment (SPEC §12: 15 s). */
export const STREAM_KEEPALIVE_MS = 15_000;

export interface ApiContext {
  service: RunService;
  fleet: FleetService;
  streams: StreamService;
}

const t = initTRPC.context<ApiContext>().create({
  // Stack traces stay in the server's logs, never in answers.
  isDev: false,
  // A comment on an idle stream, as the HTTP streams send one (http/event-stream.ts), so that proxies keep it open.
  sse: { ping: { enabled: true, intervalMs: STREAM_KEEPALIVE_MS } },
  errorFormatter({ shape, error }) {
    const { status, body } = toApiError(error);
    return {
      ...shape,
      message: body.error.message,
      data: { ...shape.data, httpStatus: status, errorCode: body.error.code, issues: body.error.issues },
    };
  },
});

/** Domain errors keep their status and code through tRPC. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof OahError) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * Every input, before its schema, whichever protocol it came by: nothing that a store could
 * not keep and give back exactly (a NUL, a lone surrogate, nesting past the limit; see
 * findJsonProblem), refused with `invalid_request` naming the field.
 */
const exactInput = t.middleware(async ({ getRawInput, next }) => {
  const raw = await getRawInput();
  const problem = raw === undefined ? null : findJsonProblem(raw);
  if (problem) {
    const path = problem.path.join(".");
    throw new OahError("invalid_request", path ? `${path}: ${problem.message}` : problem.message, {
      issues: [{ path, message: problem.message }],
    });
  }
  return next();
});

export const router = t.router;
export const procedure = t.procedure.use(domainErrors).use(exactInput);
export const createCallerFactory = t.createCallerFactory;
