export { createExecutors } from "./executors";
export { type HostProcessOptions, runHostProcess } from "./host-process";
export { createMetrics, type Metrics } from "./metrics";
export { type ProbeOptions, serveProbe, tokenMatches } from "./probes";
export { connectRedis, redactUrl } from "./redis-connection";
export {
  createRuntime,
  type HostRole,
  newHostId,
  type Runtime,
  RuntimeError,
  type RuntimeOptions,
} from "./runtime";
