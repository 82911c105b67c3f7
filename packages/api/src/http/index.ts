export { type ApiServerOptions, createApiServer, MAX_BATCH_SIZE } from "./api-server";
export { type AuthOutcome, BearerAuth, type FailedTokenLimits } from "./bearer-auth";
export { createProbeServer, type ProbeServerOptions } from "./probe-server";
export { authRefusal, type HttpMetrics, type ProbeOptions, serveProbe } from "./probes";
export { boundServer, discardUnreadBody, SERVER_BOUNDS, type ServerBounds } from "./server-bounds";
