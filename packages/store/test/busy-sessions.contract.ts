import type { RunStore } from "@oah/store";
import { createTestStore, type InProcessStoreKind, newRun, refusalOf, type TestStore } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A busy session's submissions (docs/spec.md §5), decided under the session's lock, on each of `kinds`. */
export function busySessionsContract(kinds: readonly InProcessStoreKind[]): void {
  describe.each(kinds)("a busy session's submissions on %s", (kind) => {
    let t: TestStore;
    let store: RunStore;
    let clock = 1_700_000_000_000;
    let sessions = 0;
    const session = () => `s-busy-${kind}-${++sessions}`;

    beforeAll(async () => {
      t = await createTestStore(kind, { now: () => clock++ });
      store = t.store;
    });
    afterAll(() => t?.dispose());

    /** Recovery honouring the cancel asked for of a stale run. */
    const recoverByCancel = (runId: string) =>
      store.recoverRun({
        runId,
        decide: () => ({ action: "cancel" }),
        context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
        lastSeenBefore: clock,
      });

    /** A session whose first run executes (claimed with token `t-<id>`), and whose second is queued. */
    async function executingAndQueued(sessionId: string) {
      const executing = (await store.createRun(newRun(sessionId))).run;
      const queued = (await store.createRun(newRun(sessionId))).run;
      const claim = { runId: executing.id, token: `t-${executing.id}` };
      await store.startRun(claim, "w1");
      return { executing, queued, claim };
    }

    it("reject: admitted into an idle session; refused with session_busy naming the holder while one is unfinished, nothing written", async () => {
      const s = session();
      const first = await store.createRun(newRun(s, { ifBusy: "reject" }));
      expect(first.run).toMatchObject({ seq: 1, status: "queued", ifBusy: "reject", cancelledBy: null });
      const refused = await refusalOf(store.createRun(newRun(s, { ifBusy: "reject" })));
      expect(refused).toMatchObject({ code: "session_busy", status: 409, details: { runId: first.run.id } });
      expect(refused!.message).toContain(first.run.id);
      await store.startRun({ runId: first.run.id, token: "t" }, "w1");
      expect(await refusalOf(store.createRun(newRun(s, { ifBusy: "reject" })))).toMatchObject({
        code: "session_busy",
        details: { runId: first.run.id },
      });
      expect((await store.listSessionRuns(s, { limit: 10 })).map((r) => r.id)).toEqual([first.run.id]);
      // Its end frees the session: the next one is admitted at the next position.
      await store.finishRun({ runId: first.run.id, token: "t" }, { status: "completed" });
      expect((await store.createRun(newRun(s, { ifBusy: "reject" }))).run.seq).toBe(2);
    });

    it("reject: a repeat of a submission by its idempotency key answers with its run, busy or not", async () => {
      const s = session();
      const asked = newRun(s, { ifBusy: "reject", idempotencyKey: "k" });
      const first = await store.createRun(asked);
      const again = await store.createRun({ ...asked, id: newRun(s).id });
      expect(again).toMatchObject({ created: false, run: { id: first.run.id } });
    });

    it("interrupt: the executing run is asked to stop, queued runs keep their places, the new run goes to the tail", async () => {
      const s = session();
      const { executing, queued, claim } = await executingAndQueued(s);
      const made = await store.createRun(newRun(s, { ifBusy: "interrupt" }));
      expect(made.run).toMatchObject({ seq: 3, status: "queued", ifBusy: "interrupt" });
      expect(made.cancels).toMatchObject([{ kind: "requested", run: { id: executing.id } }]);
      expect(await store.getRun(executing.id)).toMatchObject({
        status: "running",
        cancelledBy: { runId: made.run.id, reason: "interrupted" },
        errorCode: null,
      });
      expect(await store.getRun(queued.id)).toMatchObject({ status: "queued", cancelledBy: null });
      // The executing host hears it as an interrupt, not a plain cancel.
      expect(await store.heartbeat([claim])).toMatchObject({
        cancelRequested: [],
        interruptRequested: [executing.id],
      });
      // Its execution ends it cancelled: the error says by whom.
      await store.finishRun(claim, { status: "cancelled" });
      expect(await store.getRun(executing.id)).toMatchObject({
        status: "cancelled",
        errorCode: "interrupted",
        errorMessage: `interrupted by ${made.run.id}`,
      });
      const events = await store.listRunEvents(executing.id, { limit: 10 });
      expect(events.at(-1)).toMatchObject({ type: "run.cancelled", data: { errorCode: "interrupted" } });
      const queuedEvent = (await store.listRunEvents(made.run.id, { limit: 1 }))[0];
      expect(queuedEvent).toMatchObject({
        type: "run.queued",
        data: { ifBusy: "interrupt", cancelled: [executing.id] },
      });
    });

    it("interrupt into an idle session, or one with only queued runs, cancels nothing", async () => {
      const s = session();
      const queued = (await store.createRun(newRun(s))).run;
      const made = await store.createRun(newRun(s, { ifBusy: "interrupt" }));
      expect(made.cancels).toEqual([]);
      expect(await store.getRun(queued.id)).toMatchObject({ status: "queued", cancelledBy: null });
    });

    it("replace: queued runs end at once, the executing one is asked to stop; all replaced by the new run", async () => {
      const s = session();
      const { executing, queued, claim } = await executingAndQueued(s);
      const made = await store.createRun(newRun(s, { ifBusy: "replace" }));
      expect(made.cancels.map((c) => [c.kind, "run" in c ? c.run.id : null])).toEqual([
        ["requested", executing.id],
        ["cancelled", queued.id],
      ]);
      expect(await store.getRun(queued.id)).toMatchObject({
        status: "cancelled",
        errorCode: "replaced",
        errorMessage: `replaced by ${made.run.id}`,
        cancelledBy: { runId: made.run.id, reason: "replaced" },
      });
      await store.finishRun(claim, { status: "cancelled" });
      expect(await store.getRun(executing.id)).toMatchObject({ status: "cancelled", errorCode: "replaced" });
      // The new run is the session's only unfinished one, and the next to start.
      const start = await store.startRun({ runId: made.run.id, token: "t2" }, "w1");
      expect(start.kind).toBe("started");
    });

    it("interrupt ends a parked run at once, where it waits", async () => {
      const s = session();
      const parked = (await store.createRun(newRun(s))).run;
      const claim = { runId: parked.id, token: "tp" };
      await store.startRun(claim, "w1");
      expect(await store.parkRun(claim, { tool: "approve", state: {} })).toBe("parked");
      const made = await store.createRun(newRun(s, { ifBusy: "interrupt" }));
      expect(made.cancels).toMatchObject([{ kind: "cancelled", parked: true, run: { id: parked.id } }]);
      expect(await store.getRun(parked.id)).toMatchObject({ status: "cancelled", errorCode: "interrupted" });
    });

    it("a plain cancel asked for first stays a plain cancel", async () => {
      const s = session();
      const { executing, claim } = await executingAndQueued(s);
      await store.requestCancel(executing.id);
      await store.createRun(newRun(s, { ifBusy: "interrupt" }));
      expect(await store.heartbeat([claim])).toMatchObject({ cancelRequested: [executing.id] });
      await store.finishRun(claim, { status: "cancelled" });
      expect(await store.getRun(executing.id)).toMatchObject({ cancelledBy: null, errorCode: null });
    });

    it("an operator's interrupt: the executing run is asked to stop at its boundary and ends interrupted by no run; a queued one ends at once", async () => {
      const s = session();
      const { executing, queued, claim } = await executingAndQueued(s);
      const operator = { reason: "interrupted", by: null } as const;
      expect(await store.requestCancel(executing.id, operator)).toMatchObject({
        kind: "requested",
        run: { status: "running", cancelledBy: { runId: null, reason: "interrupted" } },
      });
      expect(await store.heartbeat([claim])).toMatchObject({
        cancelRequested: [],
        interruptRequested: [executing.id],
      });
      await store.finishRun(claim, { status: "cancelled" });
      expect(await store.getRun(executing.id)).toMatchObject({
        status: "cancelled",
        errorCode: "interrupted",
        errorMessage: "interrupted by an operator",
        cancelledBy: { runId: null, reason: "interrupted" },
      });
      expect(await store.requestCancel(queued.id, operator)).toMatchObject({
        kind: "cancelled",
        run: { status: "cancelled", errorCode: "interrupted", errorMessage: "interrupted by an operator" },
      });
      const events = await store.listRunEvents(queued.id, { limit: 10 });
      expect(events.at(-1)).toMatchObject({
        type: "run.cancelled",
        data: { errorCode: "interrupted", by: null },
      });
    });

    it("recovery ending an operator's interrupted stale run names the operator", async () => {
      const s = session();
      const { executing } = await executingAndQueued(s);
      await store.requestCancel(executing.id, { reason: "interrupted", by: null });
      clock += 60_000;
      await recoverByCancel(executing.id);
      expect(await store.getRun(executing.id)).toMatchObject({
        status: "cancelled",
        errorCode: "interrupted",
        errorMessage: "interrupted by an operator",
      });
    });

    it("recovery cancelling an interrupted stale run ends it interrupted; a requeue forgets who interrupted it", async () => {
      const s = session();
      const { executing } = await executingAndQueued(s);
      const made = await store.createRun(newRun(s, { ifBusy: "interrupt" }));
      clock += 60_000;
      await recoverByCancel(executing.id);
      expect(await store.getRun(executing.id)).toMatchObject({
        status: "cancelled",
        errorCode: "interrupted",
        errorMessage: `interrupted by ${made.run.id}`,
      });
      await store.requeueRuns([executing.id], {
        by: "op",
        claimedBy: null,
        maxAttempts: 3,
        includeCancelled: true,
      });
      expect(await store.getRun(executing.id)).toMatchObject({
        status: "queued",
        cancelledBy: null,
        errorCode: null,
      });
    });

    it("a batch decides each submission from the session as the earlier ones leave it", async () => {
      const s = session();
      const runs = [newRun(s, { ifBusy: "reject" }), newRun(s, { ifBusy: "reject" })];
      const atomic = await refusalOf(store.createRuns(runs, { atomic: true }));
      expect(atomic).toMatchObject({ code: "session_busy" });
      expect(atomic!.message).toContain("runs[1]");
      expect(await store.listSessionRuns(s, { limit: 10 })).toEqual([]);
      const partial = await store.createRuns(runs, { atomic: false });
      expect(partial[0]).toMatchObject({ created: true, run: { id: runs[0]!.id } });
      expect(partial[1]).toMatchObject({
        refused: { code: "session_busy", details: { runId: runs[0]!.id } },
      });
      // A replace in the same batch ends the run made before it.
      const replacing = [newRun(s), newRun(s, { ifBusy: "replace" })];
      const out = await store.createRuns(replacing, { atomic: true });
      expect(out[1]).toMatchObject({ created: true });
      expect(await store.getRun(replacing[0]!.id)).toMatchObject({
        status: "cancelled",
        errorCode: "replaced",
      });
      expect(await store.getRun(runs[0]!.id)).toMatchObject({ status: "cancelled", errorCode: "replaced" });
    });

    it("concurrent reject submissions into an idle session: exactly one is admitted", async () => {
      const s = session();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => refusalOf(store.createRun(newRun(s, { ifBusy: "reject" })))),
      );
      expect(outcomes.filter((o) => o === null)).toHaveLength(1);
      expect(outcomes.filter((o) => o?.code === "session_busy")).toHaveLength(19);
      expect(await store.listSessionRuns(s, { limit: 50 })).toHaveLength(1);
    });
  });
}
