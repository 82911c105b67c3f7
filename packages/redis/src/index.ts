export { type RedisClient, subscriberOf } from "./client";
export { connectRedis, type RedisTarget } from "./connect";
export { RedisHostLeases } from "./coordination/host-leases";
export { RedisMaintenanceLock } from "./coordination/maintenance-lock";
export { RedisPoolBoard } from "./coordination/pool-board";
export { RedisRunSignalBus } from "./coordination/run-signal-bus";
export { RedisWorkerRegistry } from "./coordination/worker-registry";
export { type RedisKeys, redisKeys } from "./keys";
export { RedisSessionQueue, type RedisSessionQueueOptions } from "./redis-session-queue";
