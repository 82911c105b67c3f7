import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type OahConfig, usesRedis } from "@oah/config";
import {
  type ControllerChannel,
  type EventBus,
  type HostLeases,
  type HostOrders,
  LocalEventBus,
  LocalHostLeases,
  LocalHostOrders,
  LocalRunSignalBus,
  localMaintenanceLock,
  type MaintenanceLock,
  MemorySessionQueue,
  type PoolBoard,
  type RunSignalBus,
  type SessionQueue,
  type WorkerRegistry,
} from "@oah/coordination";
import { type CommandsAvailability, claimAheadPolicy, DEFAULT_HYSTERESIS } from "@oah/core";
import {
  createEngine,
  type EngineObservers,
  type EngineOptions,
  Liveness,
  type Logger,
  prepareWorkspaceRoot,
  type RunEngine,
} from "@oah/engine";
import {
  connectRedis,
  type RedisClient,
  RedisControllerChannel,
  RedisEventBus,
  RedisHostLeases,
  RedisHostOrders,
  RedisMaintenanceLock,
  RedisPoolBoard,
  RedisRunSignalBus,
  RedisSessionQueue,
  RedisWorkerRegistry,
} from "@oah/redis";
import { openRunStore, type RunStore, sqliteFileFor } from "@oah/store";

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
  store: RunStore;
  hostId: string;
  queueKind: "in-process" | "redis";
  /** Whether this deployment runs commands, and if not, why. */
  commands: CommandsAvailability;
  close(): Promise<void>;
}

/** A startup refusal with a message for the operator. */
export class RuntimeError extends Error {}

/** A process's identity in logs, claims, leases and recovery records. */
export const newHostId = (role: HostRole): string =>
  `${role === "sandbox" ? "sandbox" : "api"}-${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;

function poolOptions(
  config: OahConfig,
  role: HostRole,
  registry: WorkerRegistry | null,
  board: PoolBoard | null,
): EngineOptions["pool"] {
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
    registry,
    board,
  };
}

/**
 * Opens the store and the queue the configuration names and builds the engine
 * (SPEC §2): in process without OAH_REDIS_URL, over Redis with it. Refuses, with
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
  let store: RunStore;
  try {
    store = await openRunStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      migrationsDir: options.migrationsDir,
    });
  } catch (error) {
    const kind = config.databaseUrl ? "PostgreSQL" : "SQLite";
    throw new RuntimeError(`cannot open the run store (${kind}): ${(error as Error).message}`);
  }
  let redis: RedisClient | null = null;
  try {
    if (config.redisUrl) redis = await connectRedis({ url: config.redisUrl });
    else if (config.redisClusterNodes) redis = await connectRedis({ clusterNodes: config.redisClusterNodes });
    else await store.acquireExclusiveUse();
  } catch (error) {
    await store.close();
    throw new RuntimeError((error as Error).message);
  }

  const hostId = config.hostId ?? newHostId(role);
  // With other hosts that may take over this one's runs, it may execute only while its lease is fresh.
  const liveness =
    redis && role !== "api-only" ? new Liveness(config.sessionLockTtlMs - config.heartbeatIntervalMs) : null;
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
      redis?.disconnect();
      await store.close();
      throw error instanceof CommandsUnavailable ? new RuntimeError(error.message) : error;
    }
  }
  // With PostgreSQL central, a worker host keeps its own diagnostics in the local history.db.
  const journal =
    config.databaseUrl && role !== "api-only"
      ? openLocalJournal(sqliteFileFor(config.dataDir), hostId, logger)
      : {};
  let queue: SessionQueue;
  let signals: RunSignalBus;
  let events: EventBus;
  let maintenanceLock: MaintenanceLock = localMaintenanceLock;
  let board: PoolBoard | null = null;
  let registry: WorkerRegistry | null = null;
  let leases: HostLeases = new LocalHostLeases();
  let orders: HostOrders = new LocalHostOrders();
  let controller: ControllerChannel | null = null;
  if (redis) {
    orders = new RedisHostOrders(redis, config.redisPrefix);
    controller = new RedisControllerChannel(redis, config.redisPrefix);
    leases = new RedisHostLeases(redis, config.redisPrefix);
    queue = new RedisSessionQueue({
      redis,
      prefix: config.redisPrefix,
      lockTtlMs: config.sessionLockTtlMs,
      fairShare: config.fairShare,
    });
    signals = new RedisRunSignalBus(redis, config.redisPrefix);
    events = new RedisEventBus(redis, config.redisPrefix);
    maintenanceLock = new RedisMaintenanceLock(redis, config.redisPrefix);
    board = new RedisPoolBoard(redis, config.redisPrefix);
    registry = new RedisWorkerRegistry(redis, config.redisPrefix);
  } else {
    queue = new MemorySessionQueue({ lockTtlMs: config.sessionLockTtlMs, fairShare: config.fairShare });
    signals = new LocalRunSignalBus();
    events = new LocalEventBus();
  }
  const engine = createEngine({
    hostId,
    store,
    queue,
    signals,
    events,
    maintenanceLock,
    board,
    executors: createExecutors(config, commands.runs),
    hooks: createHookRunner(config, commands.hooks),
    logger,
    observers: combineObservers(options.observers ?? {}, journal),
    pool: poolOptions(config, role, registry, board),
    workspaceRoot,
    commands: commands.availability,
    leases,
    leaseTtlMs: config.sessionLockTtlMs,
    workers: registry,
    orders,
    controller,
    liveness,
    runTimeoutMs: config.runTimeoutMs,
    // The API processes work the bulk jobs; worker hosts keep to runs.
    bulkRunsPerSecond: role === "sandbox" ? null : config.bulkRunsPerSecond,
    auditActionsPerMinute: config.auditActionsPerMinute,
    waitMode: config.waitMode,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    // An in-process claim costs no round trip: there is nothing to take off a slot's path.
    claimAhead: claimAheadPolicy(redis ? config.claimAheadRunMs : 0),
    drainTimeoutMs: config.drainTimeoutMs,
    recovery: {
      strategy: config.recoveryStrategy,
      maxAttempts: config.recoveryMaxAttempts,
      exclusiveOwner: redis === null,
      staleAfterMs: config.staleRunAfterMs,
      scanIntervalMs: config.recoveryScanIntervalMs,
      auditRetentionMs: config.auditRetentionDays * 86_400_000,
    },
  });
  return {
    engine,
    store,
    hostId,
    queueKind: redis ? "redis" : "in-process",
    commands: commands.availability,
    close: async () => {
      commands.close();
      await queue.close();
      await signals.close();
      await events.close();
      redis?.disconnect();
      await store.close();
    },
  };
}
