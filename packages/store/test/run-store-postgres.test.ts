// @module-tag system

import { openRunStore } from "@oah/store";
import { createStoreEnv, MIGRATIONS_DIR, newRun } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { runStoreContract } from "./run-store.contract";

runStoreContract(["postgres"]);

describe("status counts with several hosts on PostgreSQL", () => {
  it("stay exact while two hosts write and fold at the same time", async () => {
    const place = await createStoreEnv("postgres");
    const open = () =>
      openRunStore(
        { databaseUrl: place.databaseUrl, dataDir: place.dataDir, migrationsDir: MIGRATIONS_DIR },
        { foldCountsEvery: 1 },
      );
    const hosts = [await open(), await open()];
    try {
      // Each host submits, starts and ends runs of its own sessions, folding after every write.
      await Promise.all(
        hosts.map(async (store, h) => {
          for (let i = 0; i < 30; i++) {
            const { run } = await store.createRun(newRun(`s-fold-${h}-${i % 5}`));
            if (i % 3 === 0) continue;
            const claim = { runId: run.id, token: `t-${h}-${i}` };
            const started = await store.startRun(claim, `w${h}`);
            if (started.kind === "started" && i % 3 === 1)
              await store.finishRun(claim, { status: "completed" });
          }
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
      const counted = await hosts[0]!.overview();
      const queued = await hosts[0]!.countAwaitingSlot();
      expect(Object.values(counted.statusCounts).reduce((a, b) => a + b, 0)).toBe(60);
      expect(counted.statusCounts.queued).toBe(queued);
      const running = (await hosts[0]!.listRuns({ status: ["running"], limit: 100 })).length;
      const completed = (await hosts[0]!.listRuns({ status: ["completed"], limit: 100 })).length;
      expect(counted.statusCounts).toMatchObject({ running, completed });
    } finally {
      for (const store of hosts) await store.close();
      await place.dispose();
    }
  });
});
