export type { AbortReason } from "./abort";
export type { BulkService } from "./bulk/bulk-service";
export { type Clock, systemClock, type Timer } from "./clock";
export type {
  CommandBounds,
  CommandFile,
  CommandOutput,
  CommandRequest,
  CommandResult,
  CommandRunner,
} from "./commands/command-runner";
export { NoCommands, refusalOf } from "./commands/command-runner";
export { HostCommands } from "./commands/host-commands";
export { boundSocketPaths } from "./commands/host-sockets";
export {
  JAIL_FILES,
  JAIL_WORKSPACE,
  type JailPlan,
  jailArgv,
  outermost,
} from "./commands/jail-argv";
export { diagnoseJail, type JailDiagnosis, type JailFacts } from "./commands/jail-diagnosis";
export {
  findExecutable,
  JailedCommands,
  type JailSettings,
  JailUnavailable,
  jailFacts,
} from "./commands/jailed-commands";
export {
  type CgroupHome,
  type CgroupMounts,
  type CgroupUnavailable,
  cgroupMounts,
  chooseCgroupHome,
  findCgroupHome,
  StepCgroups,
} from "./commands/step-cgroup";
export { prepareWorkspaceRoot } from "./commands/workspace";
export { QUOTA_IMAGES, QuotaUnavailable, WorkspaceQuota } from "./commands/workspace-quota";
export { createEngine, type EngineOptions, type EngineServices, type RunEngine } from "./engine";
export { AgentExecutor, type AgentExecutorOptions, type AgentOutput } from "./executors/agent/agent-executor";
export type { ExecutionContext, ExecutionResult, Executor, RunJournal } from "./executors/executor";
export type { ChatMessage, ModelEndpoint, ToolCall } from "./executors/model/model-client";
export type { ModelLimits } from "./executors/model/model-limit";
export { ScriptExecutor, type ScriptExecutorOptions } from "./executors/script/script-executor";
export { type HookDefinition, HookRunner } from "./hooks/hook-runner";
export type { JamService } from "./jams/jam-service";
export type { HostLifecycle } from "./lifecycle/host-lifecycle";
export { Liveness } from "./liveness";
export { type Logger, silentLogger } from "./logger";
export type { MaintenanceSettings } from "./maintenance/task";
export type { EngineObservers } from "./observers";
export { PeriodicTask } from "./periodic-task";
export type { PoolOptions } from "./pool/elastic-pool";
export { RunFailure } from "./run-failure";
export type { AuditedCall, AuditService } from "./service/audit-service";
export type { FleetService } from "./service/fleet-service";
export { type PoolReports, poolOverview } from "./service/pool-overview";
export type { RequeueRequest, RunService } from "./service/run-service";
export type { SessionInspector } from "./service/session-inspector";
export type { StreamService } from "./service/stream-service";
export { DEFAULT_STREAM_SETTINGS, type EventStreamSettings, type StreamItem } from "./streams/event-stream";
export { outcomeOf } from "./worker/outcome";
