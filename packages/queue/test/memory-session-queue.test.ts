import { MemorySessionQueue } from "../src";
import { LOCK_TTL_MS, sessionQueueContract } from "./session-queue.contract";

sessionQueueContract("in-process", async () => {
  let now = Date.now();
  const queue = new MemorySessionQueue({ lockTtlMs: LOCK_TTL_MS, now: () => now });
  return {
    queue,
    advance: async (ms) => {
      now += ms;
    },
    dispose: () => queue.close(),
  };
});
