export { type ApiError, type ApiErrorBody, toApiError } from "./errors";
export { answerClientError } from "./http/client-errors";
export { bodyIsNotJson, hostNameOf, originRefusal } from "./http/request-guard";
export { HTTP_ROUTES, type HttpRoute, matchRoute, type RouteMatch } from "./http/routes";
export { type ApiCaller, type AppRouter, appRouter, createCaller } from "./root";
export type { ApiContext } from "./trpc";
