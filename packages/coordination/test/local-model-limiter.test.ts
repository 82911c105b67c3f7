// @module-tag unit

import { LocalModelLimiter } from "../src";
import { modelLimiterContract } from "./model-limiter.contract";

modelLimiterContract("in-process", async () => {
  const limiter = new LocalModelLimiter();
  return { hosts: [limiter, limiter], dispose: async () => {} };
});
