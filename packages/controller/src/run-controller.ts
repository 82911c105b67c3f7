import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { hostname } from "node:os";
import { createProbeServer } from "@oah/api/http";
import {
  ConfigError,
  type ControllerConfig,
  isLoopback,
  loadConfig,
  loadControllerConfig,
  type OahConfig,
  redactUrl,
  usesRedis,
} from "@oah/config";
import { PeriodicTask, systemClock } from "@oah/engine";
import { connectRedis, type RedisClient, RedisLeaderLease, redisBackend, redisTargetOf } from "@oah/redis";
import pg from "pg";
import { pino } from "pino";
import { createControllerMetrics } from "./controller-metrics";
import { FleetController } from "./fleet-controller";
import { FleetView } from "./fleet-view";
import { RolloutRunner } from "./rollout-runner";
import type { ScaleTarget } from "./targets/scale-target";

export interface ControllerCli {
  port?: number;
}

export interface ControllerParts {
  /** The scale target OAH_CONTROLLER_TARGET names, made from the configuration. */
  createTarget(config: ControllerConfig, base: OahConfig, logger: pino.Logger): Promise<ScaleTarget>;
}

const NAME = "oah-controller";

function exitWith(message: string, code = 1): never {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(code);
}

/** The configuration, or the process ends naming what is wrong. */
function configure(cli: ControllerCli): { base: OahConfig; config: ControllerConfig } {
  let base: OahConfig;
  let config: ControllerConfig;
  try {
    base = loadConfig();
    config = loadControllerConfig();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof Error) exitWith(error.message);
    throw error;
  }
  if (cli.port !== undefined) config.port = cli.port;
  if (!usesRedis(base) || !base.databaseUrl)
    exitWith(
      "needs OAH_REDIS_URL (or OAH_REDIS_CLUSTER_NODES) and OAH_DATABASE_URL: the Redis and PostgreSQL the sandboxes share",
    );
  if (!isLoopback(base.host) && base.apiTokens.length === 0)
    exitWith(`refusing to listen on ${base.host} without OAH_API_TOKEN: set a token or bind to 127.0.0.1`);
  return { base, config };
}

async function connect(base: OahConfig): Promise<{ redis: RedisClient; db: pg.Pool }> {
  let redis: RedisClient;
  try {
    // Set: configure refuses a configuration without Redis.
    redis = await connectRedis(redisTargetOf(base)!);
  } catch (error) {
    exitWith((error as Error).message);
  }
  const db = new pg.Pool({ connectionString: base.databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
  db.on("error", () => {});
  try {
    await db.query("SELECT 1");
  } catch (error) {
    redis.disconnect();
    exitWith(`cannot reach PostgreSQL at ${redactUrl(base.databaseUrl!)}: ${(error as Error).message}`);
  }
  return { redis, db };
}

/**
 * oah-controller (docs/spec.md §8): one of any number of controllers, of which one leads through
 * the lease in Redis. It serves /healthz, /readyz (ready as leader or standby, while it reaches
 * Redis), /snapshot and /metrics; on SIGTERM or SIGINT it gives up the lease and exits 0.
 */
export async function runController(cli: ControllerCli, parts: ControllerParts): Promise<void> {
  const { base, config } = configure(cli);
  const logger = pino({ level: base.logLevel, base: { service: NAME } });
  const { redis, db } = await connect(base);
  const prefix = base.redisPrefix;
  const candidateId = `controller-${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;
  const lease = new RedisLeaderLease(redis, prefix, candidateId, config.leaseTtlMs);
  const backend = redisBackend(redis, { prefix, lockTtlMs: base.sessionLockTtlMs });
  const { controller: channel, orders, queue, workers: registry, board } = backend;
  const target = await parts.createTarget(config, base, logger);
  const controller = new FleetController({
    lease,
    writes: {
      publishReport: (fence, report) => channel.publishReport(fence, report),
      giveAsLeader: (fence, hostId, order) => orders.giveAsLeader(fence, hostId, order),
    },
    fleet: new FleetView({ pressure: () => queue.pressure(), registry, board, orders: () => orders.all() }),
    target,
    rollouts: new RolloutRunner({ book: channel, refusal: target.rolloutRefusal, logger }),
    sizing: {
      minReplicas: config.minReplicas,
      maxReplicas: config.maxReplicas,
      slotsPerSandbox: config.slotsPerSandbox,
    },
    hysteresis: config.hysteresis,
    logger,
  });

  const ticks = new PeriodicTask(() => controller.tick(), config.intervalMs, systemClock);

  const registryOfMetrics = createControllerMetrics(controller);
  const server: Server = createProbeServer({
    metrics: { registry: registryOfMetrics },
    apiTokens: base.apiTokens,
    logger,
    role: NAME,
    isReady: async () => Date.now() - controller.lastTickAt <= 3 * config.intervalMs,
    documents: {
      "/snapshot": async () => controller.snapshot((await lease.leader()).leaderId),
    },
  });

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down: giving up the lease");
    void (async () => {
      await ticks.stop();
      await controller.stop();
      server.close();
      await backend.close().catch(() => {});
      await db.end().catch(() => {});
      process.exit(0);
    })();
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, base.host, () => resolve());
  }).catch((error: Error) => exitWith(`cannot listen on ${base.host}:${config.port}: ${error.message}`));
  // The first tick before the line that says it listens: a test (or an operator) reading it finds a decision made.
  await controller.tick();
  ticks.start();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  logger.info({ port, candidateId, target: target.kind, leading: controller.leading }, "listening");
  process.stdout.write(`${NAME} listening on http://${base.host}:${port}\n`);
}
