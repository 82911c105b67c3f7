export { doctorCommand, runDoctor } from "./doctor/doctor";
export { createExecutors, createHookRunner } from "./executors";
export { exitWith } from "./host-startup";
export { createMetrics, type Metrics } from "./metrics";
export { type HostCommand, type HostParts, type HostSpec, runHost, runHostCommand } from "./run-host";
export {
  createRuntime,
  type HostRole,
  newHostId,
  type Runtime,
  RuntimeError,
  type RuntimeOptions,
} from "./runtime";
