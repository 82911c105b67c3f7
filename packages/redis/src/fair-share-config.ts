import { createHash } from "node:crypto";
import { type FairShare, isDefaultFairShare } from "@oah/core";

/** What lua/includes/fair-share.lua answers a call that finds its configuration missing in Redis. */
const STALE = "OAH_FAIR_SHARE_STALE";

const sortedByKey = (record: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * A host's fair-share configuration as the queue's scripts take it: stored in Redis
 * under its digest, named by it in every call, and sent whole only when Redis does not
 * hold it (the first call, or after a flush). Equal weights and no caps is the digest
 * "", stored nowhere.
 */
export class FairShareConfig {
  readonly digest: string;
  private readonly json: string;

  constructor(fairShare: FairShare) {
    this.json = JSON.stringify({
      weights: sortedByKey(fairShare.weights),
      caps: sortedByKey(fairShare.caps),
    });
    this.digest = isDefaultFairShare(fairShare)
      ? ""
      : createHash("sha256").update(this.json).digest("hex").slice(0, 16);
  }

  /** Makes a script call with the digest, and again with the configuration should Redis not hold it. */
  async call<T>(script: (digest: string, config: string) => Promise<T>): Promise<T> {
    try {
      return await script(this.digest, "");
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith(STALE)) throw error;
      return script(this.digest, this.json);
    }
  }
}
