import { type EventPosition, type EventScope, openRunStore, type RunStore, STREAM_START } from "@oah/store";
import {
  createStoreEnv,
  createTestStore,
  IN_PROCESS_STORE_KINDS,
  MIGRATIONS_DIR,
  newRun,
  type StoreEnv,
  type TestStore,
} from "@oah/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A read once everything committed is settled: on PostgreSQL any transaction in progress on
 * the server (another test's, in another database) may hold events back for a moment.
 */
async function settledRead(store: RunStore, scope: EventScope, after: EventPosition, limit: number) {
  for (let tries = 0; ; tries++) {
    const page = await store.streamEvents(scope, after, limit);
    if (!page.unsettled || tries === 200) return page;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(IN_PROCESS_STORE_KINDS)("event streams on %s", (kind) => {
  let t: TestStore;
  let store: RunStore;
  beforeAll(async () => {
    t = await createTestStore(kind);
    store = t.store;
  });
  afterAll(() => t?.dispose());

  it("gives a session's events of all its runs, and a run's own, from any event on", async () => {
    const a = await store.createRun(newRun("st-1"));
    const b = await store.createRun(newRun("st-1"));
    await store.createRun(newRun("st-other"));
    const session = await settledRead(store, { sessionId: "st-1" }, STREAM_START, 100);
    expect(session.events.map((e) => [e.runId, e.type])).toEqual([
      [a.run.id, "run.queued"],
      [b.run.id, "run.queued"],
    ]);
    expect(session).toMatchObject({ unsettled: false, full: false });
    const run = await settledRead(store, { runId: b.run.id }, STREAM_START, 100);
    expect(run.events.map((e) => e.runId)).toEqual([b.run.id]);

    const first = session.events[0]!;
    const point = await store.eventPosition({ sessionId: "st-1" }, first.id);
    expect(point?.type).toBe("run.queued");
    const rest = await settledRead(store, { sessionId: "st-1" }, point!.position, 100);
    expect(rest.events.map((e) => e.id)).toEqual([session.events[1]!.id]);
    // A page cut at its limit says so; the next one goes on from its last position.
    const cut = await settledRead(store, { sessionId: "st-1" }, STREAM_START, 1);
    expect(cut).toMatchObject({ full: true, last: point!.position });
  });

  it("reads of many streams at once (one statement on PostgreSQL) each get their own events", async () => {
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await store.createRun(newRun(`st-many-${i % 3}`)));
    const pages = await Promise.all([
      ...[0, 1, 2].map((i) => settledRead(store, { sessionId: `st-many-${i}` }, STREAM_START, 10)),
      ...runs.map(({ run }) => settledRead(store, { runId: run.id }, STREAM_START, 10)),
      settledRead(store, { sessionId: "st-many-none" }, STREAM_START, 10),
    ]);
    const runIds = (k: number) => pages[k]!.events.map((e) => e.runId);
    for (const i of [0, 1, 2]) expect(runIds(i)).toEqual([runs[i]!.run.id, runs[i + 3]!.run.id]);
    for (const [k, { run }] of runs.entries()) expect(runIds(3 + k)).toEqual([run.id]);
    expect(pages[9]).toMatchObject({ events: [], last: null, full: false });
  });

  it("knows no position for an event of another stream, or none at all", async () => {
    const a = await store.createRun(newRun("st-2"));
    const [event] = (await settledRead(store, { runId: a.run.id }, STREAM_START, 10)).events;
    expect(await store.eventPosition({ sessionId: "st-other" }, event!.id)).toBeNull();
    expect(await store.eventPosition({ runId: a.run.id }, 999_999)).toBeNull();
  });
});

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
