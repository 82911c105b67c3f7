export { type AbortReason, sleep } from "./abort";
export { decodeCursor, encodeCursor, normalizeFilters } from "./admin/storage-cursor";
export type {
  CommandBounds,
  CommandOutput,
  CommandRequest,
  CommandResult,
  CommandRunner,
} from "./commands/command-runner";
export { HostCommands } from "./commands/host-commands";
export { type SandboxPlan, sandboxArgv } from "./commands/sandbox-argv";
export { SandboxedCommands, type SandboxSettings, SandboxUnavailable } from "./commands/sandboxed-commands";
export { prepareWorkspaceRoot } from "./commands/workspace";
export { type HostLeases, LocalHostLeases } from "./coordination/host-leases";
export type { PoolBoard } from "./coordination/pool-board";
export { localRecoveryLock, type RecoveryLock } from "./coordination/recovery-lock";
export { LocalRunSignalBus, type RunSignal, type RunSignalBus } from "./coordination/run-signal-bus";
export { isHealthyLease, type WorkerRegistry } from "./coordination/worker-registry";
export { type EngineOptions, type RequeueRequest, RunEngine } from "./engine";
export { AgentExecutor, type AgentExecutorOptions, type AgentOutput } from "./executors/agent/agent-executor";
export type { ExecutionContext, ExecutionResult, Executor, RunJournal } from "./executors/executor";
export { RunFailure } from "./executors/executor";
export type { ChatMessage, ModelEndpoint, ToolCall } from "./executors/model/model-client";
export { ScriptExecutor, type ScriptExecutorOptions } from "./executors/script/script-executor";
export { type HookDefinition, HookRunner } from "./hooks/hook-runner";
export type { EngineObservers } from "./host";
export { Liveness } from "./liveness";
export { type Logger, silentLogger } from "./logger";
export { ElasticPool, type PoolOptions } from "./pool/elastic-pool";
export { outcomeOf } from "./worker/outcome";
