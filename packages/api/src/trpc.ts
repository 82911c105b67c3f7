import { findJsonProblem } from "@oah/contract";
import { OahError } from "@oah/core";
import type { FleetService, RunService } from "@oah/engine";
import { initTRPC } from "@trpc/server";
import { toApiError, toTrpcError } from "./errors";

export interface ApiContext {
  service: RunService;
  fleet: FleetService;
}

const t = initTRPC.context<ApiContext>().create({
  // Stack traces stay in the server's logs, never in answers.
  isDev: false,
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
