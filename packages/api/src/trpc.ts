import { OahError } from "@oah/core";
import type { RunEngine } from "@oah/engine";
import { initTRPC } from "@trpc/server";
import { toApiError, toTrpcError } from "./errors";

export interface ApiContext {
  engine: RunEngine;
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

export const router = t.router;
export const procedure = t.procedure.use(domainErrors);
export const createCallerFactory = t.createCallerFactory;
