// @module-tag system

import { openRunStore, type RunStore, STREAM_START } from "@oah/store";
import { createStoreEnv, MIGRATIONS_DIR, newRun, type StoreEnv } from "@oah/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settledRead, streamEventsContract } from "./stream-events.contract";

streamEventsContract(["postgres"]);

describe("event streams on postgres: transactions that commit out of id order", () => {
  let place: StoreEnv;
  let store: RunStore;
  let early: pg.Client;
  let late: pg.Client;
  beforeAll(async () => {
    place = await createStoreEnv("postgres");
    store = await openRunStore({
      databaseUrl: place.databaseUrl,
      dataDir: place.dataDir,
      migrationsDir: MIGRATIONS_DIR,
    });
    early = new pg.Client({ connectionString: place.databaseUrl });
    late = new pg.Client({ connectionString: place.databaseUrl });
    await Promise.all([early.connect(), late.connect()]);
  });
  afterAll(async () => {
    await Promise.all([early?.end(), late?.end()]);
    await store?.close();
    await place?.dispose();
  });

  const insert = (client: pg.Client, runId: string) =>
    client.query<{ id: string }>(
      "INSERT INTO run_events (run_id, type, at) VALUES ($1, 'hook.notice', 0) RETURNING id",
      [runId],
    );

  it("never gives an event past one that a transaction still in progress may commit before it", async () => {
    const { run } = await store.createRun(newRun("st-pg"));
    const start = await settledRead(store, { sessionId: "st-pg" }, STREAM_START, 10);
    const afterQueued = start.last!;

    // `early` takes the lower event id but commits last; `late` commits first with the higher one.
    await early.query("BEGIN");
    const low = Number((await insert(early, run.id)).rows[0]!.id);
    await late.query("BEGIN");
    const high = Number((await insert(late, run.id)).rows[0]!.id);
    await late.query("COMMIT");
    expect(high).toBeGreaterThan(low);

    // A reader keeping "the highest id seen" would take `high` now and never see `low`.
    const held = await store.streamEvents({ sessionId: "st-pg" }, afterQueued, 10);
    expect(held).toMatchObject({ events: [], unsettled: true });

    await early.query("COMMIT");
    const both = await settledRead(store, { sessionId: "st-pg" }, afterQueued, 10);
    expect(both.events.map((e) => e.id)).toEqual([low, high]);
    expect(both.unsettled).toBe(false);
    const point = await store.eventPosition({ sessionId: "st-pg" }, low);
    expect(
      (await settledRead(store, { sessionId: "st-pg" }, point!.position, 10)).events.map((e) => e.id),
    ).toEqual([high]);
  });

  it("orders by commit, not by id, when the later-numbered event's transaction began first", async () => {
    const { run } = await store.createRun(newRun("st-pg-2"));
    const from = (await settledRead(store, { sessionId: "st-pg-2" }, STREAM_START, 10)).last!;
    await early.query("BEGIN");
    await early.query("SELECT pg_current_xact_id()");
    await late.query("BEGIN");
    const lowId = Number((await insert(late, run.id)).rows[0]!.id);
    await late.query("COMMIT");
    const highId = Number((await insert(early, run.id)).rows[0]!.id);
    expect((await store.streamEvents({ sessionId: "st-pg-2" }, from, 10)).events).toEqual([]);
    await early.query("COMMIT");
    // Both in the order of their transactions: the one begun first (the higher id) first.
    const page = await settledRead(store, { sessionId: "st-pg-2" }, from, 10);
    expect(page.events.map((e) => e.id)).toEqual([highId, lowId]);
  });
});
