import type { ModelLimit } from "@oah/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelLimiter } from "../src";

export interface ModelLimiterHarness {
  /** Two hosts' limiters over the same capacity (in one process, the one limiter twice). */
  hosts: [ModelLimiter, ModelLimiter];
  dispose(): Promise<void>;
}

const RPM_600: ModelLimit = { requestsPerMinute: 600, tokensPerMinute: null };
const TPM_6000: ModelLimit = { requestsPerMinute: null, tokensPerMinute: 6_000 };

/** Past `ms`: a timer may end within the millisecond before it, by the clock the limiter reads. */
const sleepPast = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms + 5));

/** Takes as long as it is let, alternating between the hosts; the calls taken and the wait named then. */
async function takeUntilRefused(hosts: ModelLimiter[], limit: ModelLimit, tokens: number, most = 1_000) {
  for (let taken = 0; taken < most; taken++) {
    const waitMs = await (hosts[taken % hosts.length] as ModelLimiter).take("m", limit, tokens);
    if (waitMs > 0) return { taken, waitMs };
  }
  return { taken: most, waitMs: 0 };
}

/**
 * One suite over every ModelLimiter: the in-process one, and Redis's (a single node and a
 * cluster). Real time: Redis's clock cannot be moved, so waits are short and bounds loose.
 */
export function modelLimiterContract(name: string, make: () => Promise<ModelLimiterHarness>): void {
  describe(`ModelLimiter contract: ${name}`, () => {
    let h: ModelLimiterHarness;
    beforeEach(async () => {
      h = await make();
    });
    afterEach(async () => h.dispose());

    it("lets through a tenth of the minute's requests at once, across hosts, then names the wait for one more", async () => {
      const { taken, waitMs } = await takeUntilRefused(h.hosts, RPM_600, 0);
      // 60 at once; a few more may refill while the takes go (9 a second).
      expect(taken).toBeGreaterThanOrEqual(60);
      expect(taken).toBeLessThan(64);
      expect(waitMs).toBeGreaterThan(0);
      expect(waitMs).toBeLessThanOrEqual(112);
      await sleepPast(waitMs);
      expect(await h.hosts[1].take("m", RPM_600, 0)).toBe(0);
    });

    it("counts tokens, and a correction gives back what the estimate took too much", async () => {
      expect(await h.hosts[0].take("m", TPM_6000, 500)).toBe(0);
      expect(await h.hosts[1].take("m", TPM_6000, 500)).toBeGreaterThan(0);
      await h.hosts[0].settle("m", TPM_6000, -400);
      expect(await h.hosts[1].take("m", TPM_6000, 500)).toBe(0);
    });

    it("a block stops every host's calls for its time", async () => {
      await h.hosts[0].block("m", RPM_600, 300);
      const waitMs = await h.hosts[1].take("m", RPM_600, 0);
      expect(waitMs).toBeGreaterThan(250);
      expect(waitMs).toBeLessThanOrEqual(300);
      await sleepPast(waitMs);
      // Empty at the block's end, then refilling at half the rate: a request takes about 223 ms.
      const after = await h.hosts[0].take("m", RPM_600, 0);
      expect(after).toBeGreaterThan(150);
      await sleepPast(after);
      expect(await h.hosts[1].take("m", RPM_600, 0)).toBe(0);
    });

    it("keeps each model's capacity apart", async () => {
      await h.hosts[0].block("m", RPM_600, 10_000);
      expect(await h.hosts[1].take("other", RPM_600, 0)).toBe(0);
    });
  });
}
