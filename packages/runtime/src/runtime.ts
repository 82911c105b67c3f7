import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type OahConfig, usesRedis } from "@oah/config";
import { type Backend, localBackend } from "@oah/coordination";
import { type CommandsAvailability, claimAheadPolicy, DEFAULT_HYSTERESIS } from "@oah/core";
import {
  createEngine,
  type EngineObservers,
  type EngineOptions,
  Liveness,
  type Logger,
  prepareWorkspaceRoot,
  type RunEngine,
  systemClock,
} from "@oah/engine";
import { connectRedis, redisBackend, redisTargetOf } from "@oah/redis";
import { openRunStore, type RunStore, type StoreHandle, sqliteFileFor } from "@oah/store";

import { apiOnlyCommands, type CommandSetup, CommandsUnavailable, openCommands } from "./command-setup";
import { createExecutors, createHookRunner } from "./executors";
import { combineObservers, openLocalJournal } from "./local-journal";

/** What a process is: the API with workers, the API alone, or a standalone worker host. */
export type HostRole = "api" | "api-only" | "sandbox";

export interface RuntimeOptions {
  config: OahConfig;
  role: HostRole;
  logger: Logger;
  observers?: EngineObservers;
  /** The folder holding the `pg/` and `sqlite/` migrations. */
  migrationsDir: string;
}

export interface Runtime {
  engine: RunEngine;
  /** What the host's readiness and its start line read of the store. */
  store: Pick<StoreHandle, "dialect" | "ping">;
  hostId: string;
  queueKind: Backend["kind"];
  /** Whether this deployment runs commands, and if not, why. */
  commands: CommandsAvailability;
  close(): Promise<void>;
}

/** A startup refusal with a message for the operator. */
export class RuntimeError extends Error {}

/** A process's identity in logs, claims, leases and recovery records. */
export const newHostId = (role: HostRole): string =>
  `${role === "sandbox" ? "sandbox" : "api"}-${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;

function poolOptions(config: OahConfig, role: HostRole): EngineOptions["pool"] {
  if (role === "api-only") return null;
  const p = config.pool;
  return {
    min: config.workersMin,
    max: config.workersMax,
    sizing: {
      readySessionsPerCapacityUnit: p.readySessionsPerCapacityUnit,
      reservedSubagentCapacity: p.reservedSubagentCapacity,
      busyRatioThreshold: p.busyRatioThreshold,
      ageThresholdMs: p.ageThresholdMs,
    },
    hysteresis: {
      ...DEFAULT_HYSTERESIS,
      upSampleWindow: p.upSampleWindow,
      downSampleWindow: p.downSampleWindow,
      upCooldownMs: p.upCooldownMs,
      downCooldownMs: p.downCooldownMs,
    },
    scaleIntervalMs: p.scaleIntervalMs,
    processKind: role === "sandbox" ? "standalone" : "embedded",
  };
}

/**
 * What this process coordinates through (docs/spec.md §2): Redis, shared with the other processes,
 * when the configuration names one; else its own parts, in memory, and then it must be the
 * only process on its store.
 */
async function openBackend(config: OahConfig, store: RunStore): Promise<Backend> {
  const parts = { lockTtlMs: config.sessionLockTtlMs, fairShare: config.fairShare };
  const redis = redisTargetOf(config);
  if (redis) return redisBackend(await connectRedis(redis), { ...parts, prefix: config.redisPrefix });
  await store.acquireExclusiveUse();
  return localBackend(parts);
}

/**
 * Opens the store and the queue the configuration names and builds the engine
 * (docs/spec.md §2): in process without OAH_REDIS_URL, over Redis with it. Refuses, with
 * a RuntimeError, what cannot work: a split-mode process without Redis and
 * PostgreSQL, an unreachable service, a store another in-process host owns.
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, role, logger } = options;
  if (role !== "api" && (!usesRedis(config) || !config.databaseUrl)) {
    const what = role === "sandbox" ? "oah-sandbox" : "oah-api --api-only";
    throw new RuntimeError(
      `${what} needs OAH_REDIS_URL (or OAH_REDIS_CLUSTER_NODES) and OAH_DATABASE_URL (Redis and PostgreSQL shared with the other processes)`,
    );
  }
  // One time for the store's writes, the host's lease and every part of the engine.
  const clock = systemClock;
  let store: RunStore;
  try {
    store = await openRunStore(
      { databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrationsDir: options.migrationsDir },
      { now: () => clock.now() },
    );
  } catch (error) {
    const kind = config.databaseUrl ? "PostgreSQL" : "SQLite";
    throw new RuntimeError(`cannot open the run store (${kind}): ${(error as Error).message}`);
  }
  let backend: Backend;
  try {
    backend = await openBackend(config, store);
  } catch (error) {
    await store.close();
    throw new RuntimeError((error as Error).message);
  }

  const hostId = config.hostId ?? newHostId(role);
  // Other processes coordinate through it: they may take over this host's runs.
  const shared = backend.kind !== "in-process";
  // So this host may execute only while its lease is fresh.
  const liveness =
    shared && role !== "api-only"
      ? new Liveness(config.sessionLockTtlMs - config.heartbeatIntervalMs, clock)
      : null;
  let commands: CommandSetup = apiOnlyCommands(config);
  let workspaceRoot = config.workspaceRoot;
  if (role !== "api-only") {
    try {
      workspaceRoot = await prepareWorkspaceRoot(config.workspaceRoot).catch((error: Error) => {
        throw new CommandsUnavailable(
          `cannot make the workspace root ${config.workspaceRoot}: ${error.message}`,
        );
      });
      commands = await openCommands(config, role, workspaceRoot, liveness, logger);
    } catch (error) {
      await backend.close();
      await store.close();
      throw error instanceof CommandsUnavailable ? new RuntimeError(error.message) : error;
    }
  }
  // With PostgreSQL central, a worker host keeps its own diagnostics in the local history.db.
  const journal =
    config.databaseUrl && role !== "api-only"
      ? openLocalJournal(sqliteFileFor(config.dataDir), hostId, logger)
      : {};
  const observers = combineObservers(options.observers ?? {}, journal);
  const engine = createEngine({
    hostId,
    clock,
    store,
    backend,
    executors: createExecutors(config, commands.runs, {
      limiter: backend.modelLimiter,
      clock,
      observers,
      unreachable: (error, model) =>
        logger.warn({ err: error, model }, "model limits could not be read; the call goes on without them"),
    }),
    hooks: createHookRunner(config, commands.hooks),
    logger,
    observers,
    pool: poolOptions(config, role),
    workspaceRoot,
    commands: commands.availability,
    leaseTtlMs: config.sessionLockTtlMs,
    liveness,
    runTimeoutMs: config.runTimeoutMs,
    // The API processes work the bulk jobs; worker hosts keep to runs.
    bulkRunsPerSecond: role === "sandbox" ? null : config.bulkRunsPerSecond,
    auditActionsPerMinute: config.auditActionsPerMinute,
    waitMode: config.waitMode,
    checkpoints: config.checkpoints === "on",
    interruptGraceMs: config.interruptGraceMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    // An in-process claim costs no round trip: there is nothing to take off a slot's path.
    claimAhead: claimAheadPolicy(shared ? config.claimAheadRunMs : 0),
    drainTimeoutMs: config.drainTimeoutMs,
    recovery: {
      strategy: config.recoveryStrategy,
      maxAttempts: config.recoveryMaxAttempts,
      exclusiveOwner: !shared,
      staleAfterMs: config.staleRunAfterMs,
      scanIntervalMs: config.recoveryScanIntervalMs,
      auditRetentionMs: config.auditRetentionDays * 86_400_000,
    },
  });
  return {
    engine,
    store,
    hostId,
    queueKind: backend.kind,
    commands: commands.availability,
    close: async () => {
      commands.close();
      await backend.close();
      await store.close();
    },
  };
}
