export { type ApiError, type ApiErrorBody, toApiError } from "./errors";
export { openApiDocument, type RouteCall, routeCall } from "./http/openapi";
export { HTTP_ROUTES, type HttpRoute, matchRoute, type RouteMatch } from "./http/routes";
export { type ApiCaller, type AppRouter, appRouter, createCaller } from "./root";
export type { ApiContext } from "./trpc";
