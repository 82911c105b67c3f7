export { MemorySessionQueue, type MemorySessionQueueOptions } from "./memory/memory-session-queue";
export type * from "./session-queue";
