export type { QueuePressure } from "@oah/core";
export { MemorySessionQueue, type MemorySessionQueueOptions } from "./memory-session-queue";
export type * from "./session-queue";
export { Waiters } from "./waiters";
export { byReadySessions, type WorkspaceReadySessions } from "./workspace-ready";
