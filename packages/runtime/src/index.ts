export { type AuthOutcome, BearerAuth, sameSecret } from "./bearer-auth";
export { createExecutors, createHookRunner } from "./executors";
export { type HostProcessOptions, runHostProcess } from "./host-process";
export { createHostLogger, exitWith, loadHostConfig, openRuntime } from "./host-startup";
export { createMetrics, type Metrics } from "./metrics";
export { authRefusal, type ProbeOptions, serveProbe } from "./probes";
export {
  createRuntime,
  type HostRole,
  newHostId,
  type Runtime,
  RuntimeError,
  type RuntimeOptions,
} from "./runtime";
export { boundServer, discardUnreadBody, SERVER_BOUNDS, type ServerBounds } from "./server-bounds";
