export { MemorySessionQueue, type MemorySessionQueueOptions } from "./memory/memory-session-queue";
export { type RedisClient, subscriberOf } from "./redis/client";
export { type RedisKeys, redisKeys } from "./redis/keys";
export { RedisSessionQueue, type RedisSessionQueueOptions } from "./redis/redis-session-queue";
export type * from "./session-queue";
