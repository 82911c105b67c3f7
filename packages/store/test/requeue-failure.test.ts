// @module-tag system

import { openRunStore, type RunStore, sqliteFileFor } from "@oah/store";
import { createStoreEnv, MIGRATIONS_DIR, newRun, STORE_KINDS, type StoreEnv } from "@oah/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Makes the database refuse any update of one run, as a failing write would. */
async function refuseUpdatesOf(place: StoreEnv, runId: string): Promise<void> {
  if (place.databaseUrl) {
    const client = new pg.Client({ connectionString: place.databaseUrl });
    await client.connect();
    await client.query(`CREATE FUNCTION refuse() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql`);
    await client.query(`CREATE TRIGGER refuse BEFORE UPDATE ON runs FOR EACH ROW
      WHEN (OLD.id = '${runId}') EXECUTE FUNCTION refuse()`);
    await client.end();
    return;
  }
  const db = new Database(sqliteFileFor(place.dataDir));
  db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON runs WHEN OLD.id = '${runId}'
    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
  db.close();
}

/** A stale run quarantined by recovery: one an operator may requeue. */
async function quarantined(store: RunStore, sessionId: string): Promise<string> {
  const { run } = await store.createRun(newRun(sessionId));
  await store.startRun({ runId: run.id, token: "t" }, "w");
  await store.recoverRun({
    runId: run.id,
    decide: () => ({ action: "fail", state: "quarantined", reason: "max_attempts_exhausted" }),
    context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
    lastSeenBefore: Date.now() + 60_000,
  });
  return run.id;
}

describe.each(STORE_KINDS)("a bulk requeue whose write fails for one run, on %s", (kind) => {
  let place: StoreEnv;
  let store: RunStore;

  beforeAll(async () => {
    place = await createStoreEnv(kind);
    const location = {
      databaseUrl: place.databaseUrl,
      dataDir: place.dataDir,
      migrationsDir: MIGRATIONS_DIR,
    };
    store = await openRunStore(location);
  });
  afterAll(async () => {
    await store?.close();
    await place?.dispose();
  });

  it("answers that run run_requeue_failed, requeues the others, and leaves the failed one as it was", async () => {
    const [first, refused, last] = [
      await quarantined(store, "s-bulk-a"),
      await quarantined(store, "s-bulk-b"),
      await quarantined(store, "s-bulk-c"),
    ];
    await refuseUpdatesOf(place, refused);
    const outcomes = await store.requeueRuns([first, refused, last], {
      by: "op",
      claimedBy: null,
      maxAttempts: 3,
      includeCancelled: false,
    });
    expect(outcomes.map((o) => [o.runId, o.ok ? "ok" : o.code])).toEqual([
      [first, "ok"],
      [refused, "run_requeue_failed"],
      [last, "ok"],
    ]);
    expect((await store.getRun(first))?.status).toBe("queued");
    expect((await store.getRun(last))?.status).toBe("queued");
    expect(await store.getRun(refused)).toMatchObject({ status: "failed", recoveryState: "quarantined" });
    const events = await store.listRunEvents(refused, { limit: 20 });
    expect(events.map((e) => e.type)).not.toContain("run.requeued");
  });
});
