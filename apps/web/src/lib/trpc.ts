"use client";

import type { AppRouter } from "@oah/api";
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * The console's own origin only: the route handler at /api/trpc forwards to oah-api with the
 * token, calls and subscriptions alike (an EventSource cannot set a header, and needs none: the
 * session cookie goes with it).
 */
export function makeTrpcClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: "/api/trpc" }),
        false: httpLink({ url: "/api/trpc" }),
      }),
    ],
  });
}

export interface ErrorFacts {
  message: string;
  errorCode: string | null;
  httpStatus: number | null;
}

/** What a failed call says: the API's own error code and message when there is one. */
export function errorFacts(error: unknown): ErrorFacts {
  if (error instanceof TRPCClientError) {
    const data = (error.data ?? {}) as { errorCode?: unknown; httpStatus?: unknown };
    return {
      message: error.message,
      errorCode: typeof data.errorCode === "string" ? data.errorCode : null,
      httpStatus: typeof data.httpStatus === "number" ? data.httpStatus : null,
    };
  }
  return {
    message: error instanceof Error ? error.message : String(error),
    errorCode: null,
    httpStatus: null,
  };
}

export function isUnauthorized(error: unknown): boolean {
  const facts = errorFacts(error);
  return facts.httpStatus === 401 && facts.errorCode === "unauthorized";
}
