import { type EventPosition, type EventScope, type RunStore, STREAM_START } from "@oah/store";
import { createTestStore, type InProcessStoreKind, newRun, type TestStore } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A read once everything committed is settled: on PostgreSQL any transaction in progress on
 * the server (another test's, in another database) may hold events back for a moment.
 */
export async function settledRead(store: RunStore, scope: EventScope, after: EventPosition, limit: number) {
  for (let tries = 0; ; tries++) {
    const page = await store.streamEvents(scope, after, limit);
    if (!page.unsettled || tries === 200) return page;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The streams' reads every store gives, on each of `kinds` (SQLite in the unit tier, PostgreSQL in the system tier). */
export function streamEventsContract(kinds: readonly InProcessStoreKind[]): void {
  describe.each(kinds)("event streams on %s", (kind) => {
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
}
