import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { OahConfig } from "@oah/config";
import {
  type EngineHooks,
  type Executor,
  LocalCancelBus,
  type Logger,
  RunEngine,
  ScriptExecutor,
} from "@oah/engine";
import { MemorySessionQueue } from "@oah/queue";
import type { RunStore } from "@oah/store";

/** A process's identity in logs, claims and recovery records. */
export const newHostId = (): string => `${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;

const SHELL_OUTPUT_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2_000;

export function createExecutors(config: OahConfig): Map<string, Executor> {
  const script = new ScriptExecutor({
    toolTimeoutMs: config.toolTimeoutMs,
    maxOutputBytes: SHELL_OUTPUT_LIMIT,
    killGraceMs: KILL_GRACE_MS,
    shellEnv: ({ run, workspaceDir }) => ({
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: workspaceDir,
      LANG: "C.UTF-8",
      OAH_RUN_ID: run.id,
      OAH_SESSION_ID: run.sessionId,
      OAH_WORKSPACE_ID: run.workspaceId,
    }),
  });
  return new Map<string, Executor>([["script", script]]);
}

export interface EmbeddedRuntime {
  engine: RunEngine;
  close(): Promise<void>;
}

/** The embedded default: in-process queue and cancel bus, this process's workers, the given store. */
export function createEmbeddedEngine(
  config: OahConfig,
  store: RunStore,
  logger: Logger,
  hooks: EngineHooks,
): EmbeddedRuntime {
  const queue = new MemorySessionQueue({ lockTtlMs: config.sessionLockTtlMs });
  const cancelBus = new LocalCancelBus();
  const engine = new RunEngine({
    hostId: newHostId(),
    store,
    queue,
    cancelBus,
    executors: createExecutors(config),
    logger,
    hooks,
    workers: config.workersMax,
    workspaceRoot: config.workspaceRoot,
    runTimeoutMs: config.runTimeoutMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    drainTimeoutMs: config.drainTimeoutMs,
    recovery: {
      strategy: config.recoveryStrategy,
      maxAttempts: config.recoveryMaxAttempts,
      exclusiveOwner: true,
      staleAfterMs: config.staleRunAfterMs,
    },
  });
  return {
    engine,
    close: async () => {
      await queue.close();
      await cancelBus.close();
    },
  };
}
