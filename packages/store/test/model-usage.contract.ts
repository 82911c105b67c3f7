import type { RunStore } from "@oah/store";
import { createTestStore, type InProcessStoreKind, newRun, type TestStore } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const HOUR = 3_600_000;

/** The model usage each workspace's calls add up to, by hour (docs/spec.md §4), on each of `kinds`. */
export function modelUsageContract(kinds: readonly InProcessStoreKind[]): void {
  describe.each(kinds)("model usage on %s", (kind) => {
    let t: TestStore;
    let store: RunStore;
    // An hour's start, then time as the test moves it.
    let clock = 1_700_002_800_000;
    beforeAll(async () => {
      t = await createTestStore(kind, { now: () => clock });
      store = t.store;
    });
    afterAll(() => t?.dispose());

    /** A started run of `workspaceId`, and its claim. */
    async function started(workspaceId: string) {
      const run = (await store.createRun(newRun(`s-usage-${kind}-${workspaceId}-${clock}`, { workspaceId })))
        .run;
      const claim = { runId: run.id, token: `t-${run.id}` };
      await store.startRun(claim, "w1");
      return claim;
    }
    const call = async (
      claim: { runId: string; token: string },
      promptTokens: number,
      completionTokens: number,
    ) => {
      const step = (await store.startStep(claim, { kind: "model", name: "m" }))!;
      return store.finishStep(
        claim,
        step,
        { status: "completed", output: {}, usage: { promptTokens, completionTokens } },
        { state: { calls: 1 } },
      );
    };

    it("adds each call to its run's workspace's hour, in the step end's write; a fenced end adds nothing", async () => {
      const a = await started("ws-a");
      const b = await started("ws-b");
      expect(await call(a, 100, 10)).toBe(true);
      expect(await call(a, 200, 20)).toBe(true);
      expect(await call(b, 5, 1)).toBe(true);
      // Without a checkpoint too, as a call whose reply is not checkpointed.
      const step = (await store.startStep(b, { kind: "model", name: "m" }))!;
      expect(
        await store.finishStep(b, step, {
          status: "completed",
          usage: { promptTokens: 7, completionTokens: 3 },
        }),
      ).toBe(true);
      // A stale holder's end is refused, and so is its count.
      const stale = { runId: a.runId, token: "stale" };
      const staleStep = (await store.startStep(a, { kind: "model", name: "m" }))!;
      expect(
        await store.finishStep(stale, staleStep, {
          status: "completed",
          usage: { promptTokens: 1e6, completionTokens: 1 },
        }),
      ).toBe(false);
      clock += HOUR;
      expect(await call(a, 1, 1)).toBe(true);

      const hour = new Date(1_700_002_800_000).toISOString();
      const next = new Date(1_700_002_800_000 + HOUR).toISOString();
      expect(await store.modelUsage({ from: 1_700_002_800_000, to: clock + 1 })).toEqual([
        { workspaceId: "ws-a", hour, calls: 2, promptTokens: 300, completionTokens: 30 },
        { workspaceId: "ws-b", hour, calls: 2, promptTokens: 12, completionTokens: 4 },
        { workspaceId: "ws-a", hour: next, calls: 1, promptTokens: 1, completionTokens: 1 },
      ]);
      // One workspace's; a range from inside an hour takes that hour; `to` excludes its hour's start.
      expect(
        await store.modelUsage({ from: 1_700_002_800_000 + 60_000, to: clock, workspaceIds: ["ws-a"] }),
      ).toEqual([{ workspaceId: "ws-a", hour, calls: 2, promptTokens: 300, completionTokens: 30 }]);
      expect(await store.modelUsage({ from: 0, to: clock + 1, workspaceIds: [] })).toEqual([]);
    });
  });
}
