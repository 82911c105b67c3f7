// @module-tag unit

import { MemorySessionQueue } from "../src";
import { sessionQueueContract } from "./session-queue.contract";

sessionQueueContract("in-process", async (lockTtlMs, fairShare) => {
  let now = Date.now();
  const queue = new MemorySessionQueue({ lockTtlMs, now: () => now, fairShare });
  return {
    queue,
    advance: async (ms) => {
      now += ms;
    },
    dispose: () => queue.close(),
  };
});
