import type { RecoveryReason } from "@oah/core";
import type { RunStore } from "@oah/store";
import { createTestStore, type InProcessStoreKind, newRun, type TestStore } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Recovery giving up on a stale run after its last attempt (max_attempts_exhausted). */
function quarantine(
  store: RunStore,
  runId: string,
  at: number,
  lastSeenBefore = at + 1,
  reason: RecoveryReason = "max_attempts_exhausted",
) {
  return store.recoverRun({
    runId,
    decide: () => ({ action: "fail", state: "quarantined", reason }),
    context: {
      policy: { strategy: "requeue_running", maxAttempts: 3 },
      by: "h",
    },
    lastSeenBefore,
  });
}

/** Bob's bulk cancel of workspace `ws`'s runs, begun by api-0. */
function cancelJob(store: RunStore, id: string, ws: string) {
  return store.createBulkJob({
    id,
    action: "cancel",
    filter: { workspaceId: ws },
    requestedBy: "bob",
    claimedBy: null,
    includeCancelled: false,
    owner: "api-0",
    leaseMs: 10_000,
  });
}

/**
 * What every store passes, on each of `kinds`: the unit tier runs it on SQLite (a file, and in
 * memory, the engine's unit tests' store), the system tier on PostgreSQL.
 */
export function runStoreContract(kinds: readonly InProcessStoreKind[]): void {
  describe.each(kinds)("RunStore on %s", (kind) => {
    let t: TestStore;
    let store: RunStore;
    let clock = 1_700_000_000_000;

    beforeAll(async () => {
      t = await createTestStore(kind, { now: () => clock });
      store = t.store;
    });
    afterAll(() => t?.dispose());

    it("numbers a session's runs in submission order and records run.queued", async () => {
      const a = await store.createRun(newRun("s-order"));
      const b = await store.createRun(newRun("s-order"));
      const other = await store.createRun(newRun("s-other"));
      expect([a.run.seq, b.run.seq, other.run.seq]).toEqual([1, 2, 1]);
      expect(a.run).toMatchObject({
        status: "queued",
        attempt: 0,
        startedAt: null,
        metadata: {},
        recoveryState: null,
      });
      expect((await store.listSessionRuns("s-order", { limit: 10 })).map((r) => r.id)).toEqual([
        a.run.id,
        b.run.id,
      ]);
      const events = await store.listRunEvents(a.run.id, { limit: 10 });
      expect(events.map((e) => e.type)).toEqual(["run.queued"]);
    });

    it("returns the existing run for a repeated idempotency key, without using a position", async () => {
      const first = await store.createRun(newRun("s-idem", { idempotencyKey: "k1" }));
      const again = await store.createRun(newRun("s-idem", { idempotencyKey: "k1" }));
      const next = await store.createRun(newRun("s-idem", { idempotencyKey: "k2" }));
      expect(first.created).toBe(true);
      expect(again).toMatchObject({ run: first.run, created: false });
      expect(next.run.seq).toBe(2);
    });

    it("numbers concurrent submissions to one session without gaps or repeats", async () => {
      const results = await Promise.all(
        Array.from({ length: 30 }, () => store.createRun(newRun("s-concurrent"))),
      );
      expect(results.map((r) => r.run.seq).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
    });

    it("numbers a batch's runs in each session in the order given, after the runs already there", async () => {
      const before = (await store.createRun(newRun("s-batch-1"))).run;
      const batch = [
        newRun("s-batch-1"),
        newRun("s-batch-2"),
        newRun("s-batch-1"),
        newRun("s-batch-2"),
        newRun("s-batch-1"),
      ];
      const outcomes = await store.createRuns(batch, { atomic: true });
      const made = outcomes.map((o) => ("run" in o ? [o.run.id, o.run.sessionId, o.run.seq, o.created] : o));
      expect(made).toEqual([
        [batch[0]!.id, "s-batch-1", 2, true],
        [batch[1]!.id, "s-batch-2", 1, true],
        [batch[2]!.id, "s-batch-1", 3, true],
        [batch[3]!.id, "s-batch-2", 2, true],
        [batch[4]!.id, "s-batch-1", 4, true],
      ]);
      expect((await store.listSessionRuns("s-batch-1", { limit: 10 })).map((r) => r.id)).toEqual([
        before.id,
        batch[0]!.id,
        batch[2]!.id,
        batch[4]!.id,
      ]);
      const events = await store.listRunEvents(batch[2]!.id, { limit: 10 });
      expect(events.map((e) => [e.type, e.data])).toEqual([["run.queued", { seq: 3, priority: "normal" }]]);
      // Batches at once: every run once, each session without gaps.
      const concurrent = await Promise.all(
        Array.from({ length: 6 }, () =>
          store.createRuns(
            Array.from({ length: 9 }, (_, i) => newRun(`s-batch-c${i % 3}`)),
            { atomic: true },
          ),
        ),
      );
      expect(concurrent.flat()).toHaveLength(54);
      for (const session of ["s-batch-c0", "s-batch-c1", "s-batch-c2"]) {
        const seqs = (await store.listSessionRuns(session, { limit: 100 })).map((r) => r.seq);
        expect(seqs).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
      }
    });

    it("answers a batch's repeated idempotency keys with the run they made, and refuses an atomic batch whole", async () => {
      const keyed = (key: string, value = 1) =>
        newRun("s-batch-keys", { idempotencyKey: key, input: { steps: [{ type: "output", value }] } });
      const first = await store.createRuns([keyed("k1"), keyed("k1"), keyed("k2")], { atomic: true });
      const [a, again, b] = first as { run: { id: string; seq: number }; created: boolean }[];
      expect([a!.created, again!.created, b!.created]).toEqual([true, false, true]);
      expect(again!.run.id).toBe(a!.run.id);
      expect([a!.run.seq, b!.run.seq]).toEqual([1, 2]);
      // A later batch repeats k1 with its body: the same run, and no position used.
      const later = await store.createRuns([keyed("k1"), keyed("k3")], { atomic: false });
      expect(later.map((o) => ("run" in o ? [o.run.id === a!.run.id, o.created, o.run.seq] : o))).toEqual([
        [true, false, 1],
        [false, true, 3],
      ]);
      // Another body under k2: a conflict, item by item when partial...
      const partial = await store.createRuns([keyed("k4"), keyed("k2", 2)], { atomic: false });
      expect(partial[1]).toEqual({ conflict: expect.objectContaining({ id: b!.run.id }) });
      expect(partial[0]).toMatchObject({ created: true, run: { seq: 4 } });
      // ...and the whole batch refused, nothing written, when atomic.
      const other = newRun("s-batch-untouched");
      await expect(
        store.createRuns([other, keyed("k5"), keyed("k2", 2)], { atomic: true }),
      ).rejects.toMatchObject({
        code: "idempotency_key_conflict",
        message: expect.stringContaining("runs[2]"),
      });
      expect(await store.getRun(other.id)).toBeNull();
      expect(await store.listSessionRuns("s-batch-untouched", { limit: 10 })).toEqual([]);
      const kept = await store.listSessionRuns("s-batch-keys", { limit: 10 });
      expect(kept.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      // The next run takes the next position: the refused batch used none.
      expect((await store.createRun(newRun("s-batch-keys"))).run.seq).toBe(5);
    });

    it("keeps a session in the workspace of its first run: another workspace is refused, nothing written", async () => {
      const inB = (sessionId: string, overrides = {}) =>
        newRun(sessionId, { workspaceId: "ws-b", ...overrides });
      const first = await store.createRun(newRun("s-ws", { workspaceId: "ws-a" }));
      const refusal = { code: "session_workspace_mismatch", status: 409 };
      // One at a time, with a key or without; and several at once, the others written (one
      // statement for all on PostgreSQL).
      await expect(store.createRun(inB("s-ws"))).rejects.toMatchObject(refusal);
      await expect(store.createRun(inB("s-ws", { idempotencyKey: "k" }))).rejects.toMatchObject(refusal);
      const together = await Promise.allSettled([
        store.createRun(newRun("s-ws", { workspaceId: "ws-a" })),
        store.createRun(inB("s-ws")),
        store.createRun(inB("s-ws-other")),
      ]);
      expect(together.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((together[1] as PromiseRejectedResult).reason).toMatchObject(refusal);
      // A batch: refused whole when atomic, whether the session exists or the batch makes it...
      const untouched = newRun("s-ws-untouched", { workspaceId: "ws-a" });
      for (const batch of [
        [untouched, inB("s-ws")],
        [untouched, newRun("s-ws-new", { workspaceId: "ws-a" }), inB("s-ws-new")],
      ]) {
        await expect(store.createRuns(batch, { atomic: true })).rejects.toMatchObject({
          ...refusal,
          message: expect.stringContaining(`runs[${batch.length - 1}]`),
        });
        await expect(store.createRuns(batch, { atomic: true })).rejects.toMatchObject(refusal);
      }
      expect(await store.getRun(untouched.id)).toBeNull();
      expect(await store.listSessionRuns("s-ws-new", { limit: 10 })).toEqual([]);
      // ...item by item when partial, with keys or without.
      for (const key of [null, "pk"]) {
        const partial = await store.createRuns(
          [
            inB("s-ws", { idempotencyKey: key }),
            newRun("s-ws", { workspaceId: "ws-a", idempotencyKey: key }),
          ],
          { atomic: false },
        );
        expect(partial[0]).toEqual({ refused: expect.objectContaining(refusal) });
        expect(partial[1]).toMatchObject({ created: true, run: { workspaceId: "ws-a" } });
      }
      // A submission that names no workspace joins the session's, one at a time or in a batch; a
      // new session without one is in the default workspace.
      const unnamed = (sessionId: string, overrides = {}) =>
        newRun(sessionId, { workspaceId: null, ...overrides });
      const joined = await Promise.all([
        store.createRun(unnamed("s-ws")),
        store.createRun(unnamed("s-ws", { idempotencyKey: "u" })),
        store.createRuns([unnamed("s-ws"), unnamed("s-ws-fresh"), unnamed("s-ws")], { atomic: true }),
      ]);
      const workspaces = [joined[0].run, joined[1].run, ...joined[2].map((o) => ("run" in o ? o.run : null))];
      expect(workspaces.map((r) => r?.workspaceId)).toEqual(["ws-a", "ws-a", "ws-a", "default", "ws-a"]);
      // Repeated without a workspace, a key's run is the same submission.
      expect(await store.createRun(unnamed("s-ws", { idempotencyKey: "u" }))).toMatchObject({
        created: false,
      });
      const runs = await store.listSessionRuns("s-ws", { limit: 10 });
      expect(runs.map((r) => r.workspaceId)).toEqual(Array.from({ length: 8 }, () => "ws-a"));
      expect(runs.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(runs[0]!.id).toBe(first.run.id);
    });

    it("names an atomic batch's earlier submission by its place when the conflict is within the batch", async () => {
      const keyed = (value: number) =>
        newRun("s-batch-inner", { idempotencyKey: "k", input: { steps: [{ type: "output", value }] } });
      const refused = store.createRuns([keyed(1), keyed(2)], { atomic: true });
      await expect(refused).rejects.toMatchObject({
        code: "idempotency_key_conflict",
        message:
          "nothing was submitted: runs[1] reuses the idempotencyKey of runs[0] in session s-batch-inner with another body",
      });
      expect(await store.listSessionRuns("s-batch-inner", { limit: 10 })).toEqual([]);
    });

    it("keeps what PostgreSQL's JSON cannot hold (NUL, lone surrogates, in keys and values) as U+FFFD", async () => {
      const odd = { "call\u0000id": "half \ud83d of a pair", ok: "\\u0000 stays text", pair: "😀" };
      const kept = { "call\ufffdid": "half \ufffd of a pair", ok: "\\u0000 stays text", pair: "😀" };
      const run = (await store.createRun(newRun("s-odd-json", { input: { steps: [], odd } }))).run;
      expect((await store.getRun(run.id))!.input).toEqual({ steps: [], odd: kept });
      const claim = { runId: run.id, token: "t-odd" };
      await store.startRun(claim, "w1");
      expect(await store.appendEvent(claim, "tool.started", odd)).toBe(true);
      const stepId = await store.startStep(claim, { kind: "model", name: "reply" });
      expect(await store.finishStep(claim, stepId!, { status: "completed", output: odd })).toBe(true);
      expect(await store.finishRun(claim, { status: "completed", output: odd })).not.toBeNull();
      expect((await store.getRun(run.id))!.output).toEqual(kept);
      const events = await store.listRunEvents(run.id, { limit: 10 });
      expect(events.find((e) => e.type === "tool.started")!.data).toEqual(kept);
      expect((await store.listRunSteps(run.id)).at(-1)!.output).toEqual(kept);
    });

    it("starts only the first unfinished run of a session, once", async () => {
      const first = (await store.createRun(newRun("s-guard"))).run;
      const second = (await store.createRun(newRun("s-guard"))).run;
      expect(await store.startRun({ runId: second.id, token: "t2" }, "w1")).toEqual({ kind: "blocked" });
      const started = await store.startRun({ runId: first.id, token: "t1" }, "w1");
      expect(started.kind).toBe("started");
      if (started.kind !== "started") return;
      expect(started.run).toMatchObject({ status: "running", attempt: 1, workerId: "w1" });
      expect(started.run.startedAt).not.toBeNull();
      // A second start of the same run is refused: running → running would be a second execution.
      expect(await store.startRun({ runId: first.id, token: "t1b" }, "w2")).toEqual({
        kind: "gone",
        status: "running",
      });
      expect(await store.startRun({ runId: second.id, token: "t2" }, "w1")).toEqual({ kind: "blocked" });
      await store.finishRun({ runId: first.id, token: "t1" }, { status: "completed", output: { ok: true } });
      expect((await store.startRun({ runId: second.id, token: "t2" }, "w1")).kind).toBe("started");
      expect(await store.startRun({ runId: "run_missing", token: "x" }, "w1")).toEqual({
        kind: "gone",
        status: null,
      });
    });

    it("fences every write of an execution by its claim token", async () => {
      const run = (await store.createRun(newRun("s-fence"))).run;
      await store.startRun({ runId: run.id, token: "good" }, "w1");
      const bad = { runId: run.id, token: "stolen" };
      expect(await store.appendEvent(bad, "tool.started", { name: "x" })).toBe(false);
      expect(await store.startStep(bad, { kind: "tool", name: "shell" })).toBeNull();
      expect(await store.finishRun(bad, { status: "completed" })).toBeNull();
      expect((await store.heartbeat([bad])).fenced).toEqual([run.id]);

      const good = { runId: run.id, token: "good" };
      expect(await store.appendEvent(good, "tool.started", { name: "x" })).toBe(true);
      const stepId = await store.startStep(good, { kind: "tool", name: "shell" });
      expect(stepId).toEqual(expect.any(Number));
      expect(await store.finishStep(bad, stepId!, { status: "completed" })).toBe(false);
      expect(await store.finishStep(good, stepId!, { status: "completed", output: { exitCode: 0 } })).toBe(
        true,
      );
      const done = await store.finishRun(good, {
        status: "failed",
        errorCode: "tool_failed",
        errorMessage: "boom",
      });
      expect(done).toMatchObject({ status: "failed", errorCode: "tool_failed", errorMessage: "boom" });
      // The end answers the run's summary: its input is not read back for the host, which has it.
      expect(done).not.toHaveProperty("input");
      expect(done).not.toHaveProperty("output");
      expect(await store.getRun(good.runId)).toMatchObject({ status: "failed", input: expect.anything() });
      // Once terminal, nothing more is written, not even by the owner.
      expect(await store.appendEvent(good, "tool.completed")).toBe(false);
      expect(await store.finishRun(good, { status: "completed" })).toBeNull();

      const events = await store.listRunEvents(run.id, { limit: 100 });
      expect(events.map((e) => e.type)).toEqual(["run.queued", "run.started", "tool.started", "run.failed"]);
      expect(events[3]!.data).toEqual({ errorCode: "tool_failed", errorMessage: "boom" });
      const steps = await store.listRunSteps(run.id);
      expect(steps).toMatchObject([
        { kind: "tool", name: "shell", status: "completed", output: { exitCode: 0 } },
      ]);
    });

    it("refuses to end a run with a status that is not an end (invalid_run_transition), writing nothing", async () => {
      const run = (await store.createRun(newRun("s-bad-end"))).run;
      const claim = { runId: run.id, token: "t" };
      await store.startRun(claim, "w1");
      for (const status of ["queued", "running", "waiting_tool"]) {
        await expect(store.finishRun(claim, { status } as never)).rejects.toMatchObject({
          code: "invalid_run_transition",
        });
      }
      expect(await store.getRun(run.id)).toMatchObject({ status: "running", endedAt: null });
      expect((await store.listRunEvents(run.id, { limit: 10 })).map((e) => e.type)).toEqual([
        "run.queued",
        "run.started",
      ]);
    });

    it("batches heartbeats and reports fenced claims and requested cancels", async () => {
      const a = (await store.createRun(newRun("s-hb-a"))).run;
      const b = (await store.createRun(newRun("s-hb-b"))).run;
      await store.startRun({ runId: a.id, token: "ta" }, "w");
      await store.startRun({ runId: b.id, token: "tb" }, "w");
      clock += 5_000;
      expect(await store.requestCancel(b.id)).toMatchObject({
        kind: "requested",
        run: { status: "running" },
      });
      const result = await store.heartbeat([
        { runId: a.id, token: "ta" },
        { runId: b.id, token: "tb" },
        { runId: a.id, token: "old" },
      ]);
      expect(result.cancelRequested).toEqual([b.id]);
      expect(result.fenced).toEqual([a.id]); // only the claim with the stale token
      expect((await store.getRun(a.id))!.heartbeatAt).toBe(new Date(clock).toISOString());
    });

    it("cancels a queued run at once and records only a request for a running one", async () => {
      const queued = (await store.createRun(newRun("s-cancel"))).run;
      const cancelled = await store.requestCancel(queued.id);
      expect(cancelled).toMatchObject({ kind: "cancelled", run: { status: "cancelled", errorCode: null } });
      expect(await store.requestCancel(queued.id)).toMatchObject({ kind: "terminal" });
      expect(await store.requestCancel("run_nope")).toEqual({ kind: "missing" });
      // The cancelled run no longer holds the session back.
      const next = (await store.createRun(newRun("s-cancel"))).run;
      expect((await store.startRun({ runId: next.id, token: "t" }, "w")).kind).toBe("started");
      const done = await store.finishRun({ runId: next.id, token: "t" }, { status: "cancelled" });
      expect(done?.status).toBe("cancelled");
      expect((await store.listRunEvents(next.id, { limit: 10 })).map((e) => e.type)).toEqual([
        "run.queued",
        "run.started",
        "run.cancelled",
      ]);
    });

    it("lists queued runs in queue order, page by page, as entries that name their workspace", async () => {
      const ids: string[] = [];
      for (const s of ["q-b", "q-a", "q-b", "q-a"]) {
        const created = await store.createRun(newRun(s, { workspaceId: `ws-${s}` }));
        expect(created.queueEntry.workspaceId).toBe(`ws-${s}`);
        ids.push(created.run.id);
      }
      const all = [];
      let after: { sessionId: string; queueSeq: number } | undefined;
      for (;;) {
        const page = await store.listAwaitingSlot({ after, limit: 1 });
        if (page.length === 0) break;
        all.push(...page);
        const last = page[page.length - 1]!;
        after = { sessionId: last.sessionId, queueSeq: last.queueSeq };
      }
      const mine = all.filter((e) => e.sessionId.startsWith("q-"));
      expect(mine.map((e) => e.runId)).toEqual([ids[1], ids[3], ids[0], ids[2]]);
      expect(mine[0]).toMatchObject({
        sessionId: "q-a",
        workspaceId: "ws-q-a",
        queueSeq: 1,
        priority: "normal",
      });
    });

    it("names the run executing under a session lock's token, and none for another token or session", async () => {
      const held = (await store.createRun(newRun("s-holder"))).run;
      await store.createRun(newRun("s-holder"));
      await store.startRun({ runId: held.id, token: "t-held" }, "host-h/w1");
      const holders = await store.claimHolders([
        { sessionId: "s-holder", token: "t-held" },
        { sessionId: "s-holder", token: "t-other" },
        { sessionId: "s-elsewhere", token: "t-held" },
      ]);
      expect([...holders.keys()]).toEqual(["t-held"]);
      expect(holders.get("t-held")).toMatchObject({ id: held.id, workerId: "host-h/w1", status: "running" });
      await store.finishRun({ runId: held.id, token: "t-held" }, { status: "completed" });
      expect((await store.claimHolders([{ sessionId: "s-holder", token: "t-held" }])).size).toBe(0);
    });

    it("names the runs an earlier unfinished run of their session holds back", async () => {
      const first = (await store.createRun(newRun("s-behind"))).run;
      const second = (await store.createRun(newRun("s-behind"))).run;
      const alone = (await store.createRun(newRun("s-alone"))).run;
      expect(await store.behindUnfinished([first.id, second.id, alone.id])).toEqual(new Set([second.id]));
      await store.startRun({ runId: first.id, token: "t" }, "w1");
      expect(await store.behindUnfinished([second.id])).toEqual(new Set([second.id]));
      await store.finishRun({ runId: first.id, token: "t" }, { status: "completed" });
      expect(await store.behindUnfinished([second.id])).toEqual(new Set());
    });

    it("recovers a stale run: fail closed, or requeue at the front of its session", async () => {
      const stale = (await store.createRun(newRun("s-rec"))).run;
      const behind = (await store.createRun(newRun("s-rec"))).run;
      await store.startRun({ runId: stale.id, token: "dead" }, "w-dead");
      await store.startStep({ runId: stale.id, token: "dead" }, { kind: "tool", name: "shell" });
      const lastSeenBefore = clock + 1;
      const found = await store.findStaleRuns({ lastSeenBefore, limit: 100 });
      expect(found.map((r) => r.id)).toContain(stale.id);
      expect(
        (await store.findStaleRuns({ lastSeenBefore: clock, limit: 100 })).map((r) => r.id),
      ).not.toContain(stale.id);

      const context = {
        policy: { strategy: "requeue_running" as const, maxAttempts: 3 },
        by: "host-1",
      };
      const requeued = await store.recoverRun({
        runId: stale.id,
        decide: () => ({ action: "requeue", state: "requeued", reason: "automatic_requeue" }),
        context,
        lastSeenBefore,
      });
      expect(requeued?.queueEntry).toMatchObject({ runId: stale.id, sessionId: "s-rec", queueSeq: 1 });
      expect(requeued?.previousClaimToken).toBe("dead");
      expect(requeued?.run).toMatchObject({
        status: "queued",
        startedAt: null,
        heartbeatAt: null,
        recoveryState: "requeued",
        metadata: {
          recoveryAttempts: 1,
          recovery: { state: "requeued", attempts: 1, reason: "automatic_requeue" },
        },
      });
      // The dead worker is fenced out; the run is first in its session again.
      expect(await store.finishRun({ runId: stale.id, token: "dead" }, { status: "completed" })).toBeNull();
      expect(await store.startRun({ runId: behind.id, token: "x" }, "w")).toEqual({ kind: "blocked" });
      const queued = (await store.listAwaitingSlot({ limit: 1000 })).filter((e) => e.sessionId === "s-rec");
      expect(queued.map((e) => e.runId)).toEqual([stale.id, behind.id]);
      const types = (await store.listRunEvents(stale.id, { limit: 100 })).map((e) => e.type);
      expect(types.slice(-2)).toEqual(["run.requeued", "run.queued"]);
      expect(await store.listRunSteps(stale.id)).toMatchObject([
        { kind: "tool", name: "shell", status: "failed", errorCode: "worker_recovery_failed" },
        { kind: "system", name: "run.requeued", status: "completed" },
      ]);

      await store.startRun({ runId: stale.id, token: "again" }, "w2");
      clock += 10;
      const failed = await store.recoverRun({
        runId: stale.id,
        decide: () => ({ action: "fail", state: "failed", reason: "fail_closed" }),
        context: {
          policy: { strategy: "fail", maxAttempts: 3 },
          by: "host-1",
        },
        lastSeenBefore: clock + 1,
      });
      expect(failed?.queueEntry).toBeNull();
      expect(failed?.previousClaimToken).toBe("again");
      expect(failed?.run).toMatchObject({
        status: "failed",
        errorCode: "worker_recovery_failed",
        recoveryState: "failed",
        attempt: 2,
        metadata: { recoveryAttempts: 1, recovery: { state: "failed", reason: "fail_closed" } },
      });
      // A run that is not stale any more (or not active) is left alone.
      expect(
        await store.recoverRun({
          runId: stale.id,
          decide: () => ({ action: "fail", state: "failed", reason: "fail_closed" }),
          context: {
            policy: { strategy: "fail", maxAttempts: 3 },
            by: "h",
          },
          lastSeenBefore: clock + 1,
        }),
      ).toBeNull();
    });

    it("waits for a tool: running → waiting_tool, a result delivered once, taken on resume", async () => {
      const run = (await store.createRun(newRun("s-tool"))).run;
      const claim = { runId: run.id, token: "t" };
      await store.startRun(claim, "w");
      expect(await store.deliverToolResult(run.id, "approve", 1)).toMatchObject({
        kind: "not_waiting",
        status: "running",
      });
      expect(await store.waitForTool({ runId: run.id, token: "stolen" }, "approve")).toBe(false);
      expect(await store.waitForTool(claim, "approve")).toBe(true);
      expect(await store.getRun(run.id)).toMatchObject({ status: "waiting_tool", waitingTool: "approve" });
      expect(await store.takeToolResult(claim)).toEqual({ kind: "pending" });
      expect(await store.deliverToolResult(run.id, "deny", 1)).toEqual({
        kind: "wrong_name",
        waitingTool: "approve",
      });
      expect(await store.deliverToolResult("run_none", "approve", 1)).toEqual({ kind: "unknown_run" });
      expect((await store.heartbeat([claim])).toolResultReady).toEqual([]);
      expect((await store.deliverToolResult(run.id, "approve", null)).kind).toBe("accepted");
      expect((await store.deliverToolResult(run.id, "approve", 2)).kind).toBe("not_waiting");
      expect((await store.heartbeat([claim])).toolResultReady).toEqual([run.id]);
      expect(await store.takeToolResult({ runId: run.id, token: "stolen" })).toEqual({ kind: "fenced" });
      expect(await store.takeToolResult(claim)).toEqual({ kind: "taken", output: null });
      expect(await store.getRun(run.id)).toMatchObject({ status: "running", waitingTool: null });
      const types = (await store.listRunEvents(run.id, { limit: 10 })).map((e) => e.type);
      expect(types).toEqual(["run.queued", "run.started", "run.waiting_tool", "run.resumed"]);
    });

    it("parks a waiting run: no worker, no claim, never stale; its result makes it resumable, once", async () => {
      const run = (await store.createRun(newRun("s-park"))).run;
      const later = (await store.createRun(newRun("s-park"))).run;
      const claim = { runId: run.id, token: "t1" };
      await store.startRun(claim, "w1");
      const state = { next: 3, seen: ["a"] };
      expect(await store.parkRun({ runId: run.id, token: "stolen" }, { tool: "approve", state })).toBe(
        "fenced",
      );
      expect(await store.parkRun(claim, { tool: "approve", state })).toBe("parked");
      expect(await store.getRun(run.id)).toMatchObject({
        status: "waiting_tool",
        waitingTool: "approve",
        workerId: null,
        metadata: { parked: true },
      });
      // The execution that parked it is fenced out of every later write.
      expect(await store.finishRun(claim, { status: "completed" })).toBeNull();
      expect((await store.heartbeat([claim])).fenced).toEqual([run.id]);
      expect(await store.parkRun(claim, { tool: "approve", state })).toBe("fenced");
      // Never stale however long it waits, and its session stays exclusive.
      clock += 3_600_000;
      const stale = await store.findStaleRuns({ lastSeenBefore: clock + 1, limit: 1_000 });
      expect(stale.map((r) => r.id)).not.toContain(run.id);
      expect(await quarantine(store, run.id, clock)).toBeNull();
      expect(await store.startRun({ runId: later.id, token: "t2" }, "w2")).toEqual({ kind: "blocked" });
      // It awaits no slot before its result.
      expect(await store.resumeRun({ runId: run.id, token: "early" }, "w2")).toEqual({
        kind: "gone",
        status: "waiting_tool",
      });
      expect(await store.awaitingSlot([run.id, later.id])).toEqual(new Set([later.id]));
      expect(await store.deliverToolResult(run.id, "deny", 1)).toMatchObject({ kind: "wrong_name" });
      clock += 5;
      expect(await store.deliverToolResult(run.id, "approve", { ok: true })).toMatchObject({
        kind: "accepted",
        resume: { runId: run.id, sessionId: "s-park", queueSeq: 1, enqueuedAt: clock, resume: true },
      });
      expect(await store.deliverToolResult(run.id, "approve", 2)).toMatchObject({ kind: "not_waiting" });
      expect(await store.awaitingSlot([run.id, later.id])).toEqual(new Set([run.id, later.id]));
      const inQueueOrder = await store.listAwaitingSlot({ limit: 1_000 });
      expect(inQueueOrder.filter((e) => e.sessionId === "s-park").map((e) => e.runId)).toEqual([
        run.id,
        later.id,
      ]);
      const byWait = await store.listAwaitingSlot({ enqueuedBefore: clock + 1, limit: 1_000 });
      expect(byWait.find((e) => e.runId === run.id)).toMatchObject({ resume: true });
      expect(byWait.find((e) => e.runId === later.id)?.resume).toBeUndefined();

      const resumed = await store.resumeRun({ runId: run.id, token: "t3" }, "w3");
      expect(resumed).toMatchObject({
        kind: "started",
        run: { status: "running", workerId: "w3", attempt: 1, waitingTool: null, metadata: {} },
        resumed: { tool: "approve", state, toolResult: { ok: true } },
      });
      expect(resumed.kind === "started" && resumed.run.metadata.parked).toBeFalsy();
      expect(await store.resumeRun({ runId: run.id, token: "t4" }, "w4")).toEqual({
        kind: "gone",
        status: "running",
      });
      expect(await store.awaitingSlot([run.id])).toEqual(new Set());
      expect(await store.finishRun({ runId: run.id, token: "t3" }, { status: "completed" })).not.toBeNull();
      expect((await store.startRun({ runId: later.id, token: "t2" }, "w2")).kind).toBe("started");
      const events = await store.listRunEvents(run.id, { limit: 10 });
      expect(events.map((e) => [e.type, e.data])).toEqual([
        ["run.queued", { seq: 1, priority: "normal" }],
        ["run.started", { workerId: "w1", attempt: 1 }],
        ["run.waiting_tool", { name: "approve", parked: true }],
        ["run.resumed", { name: "approve", workerId: "w3", parked: true }],
        ["run.completed", null],
      ]);
    });

    it("ends a parked run at once when cancelled, and when past its deadline", async () => {
      const park = async (sessionId: string, timeoutMs = 60_000) => {
        const run = (await store.createRun(newRun(sessionId, { timeoutMs }))).run;
        await store.startRun({ runId: run.id, token: `t-${run.id}` }, "w");
        expect(await store.parkRun({ runId: run.id, token: `t-${run.id}` }, { tool: "x", state: null })).toBe(
          "parked",
        );
        return run;
      };
      const cancelled = await park("s-park-cancel");
      expect(await store.requestCancel(cancelled.id)).toMatchObject({
        kind: "cancelled",
        parked: true,
        run: { status: "cancelled", errorCode: null, waitingTool: null, metadata: {} },
      });
      expect((await store.listRunEvents(cancelled.id, { limit: 10 })).at(-1)).toMatchObject({
        type: "run.cancelled",
        data: { while: "parked" },
      });
      // Its result can no longer be given.
      expect(await store.deliverToolResult(cancelled.id, "x", 1)).toMatchObject({ kind: "not_waiting" });

      const due = await park("s-park-due", 1_000);
      const notDue = await park("s-park-not-due", 60_000);
      expect((await store.expireParkedRuns(100)).map((r) => r.id)).not.toContain(due.id);
      clock += 1_001;
      const expired = await store.expireParkedRuns(100);
      expect(expired.map((r) => r.id)).toContain(due.id);
      expect(expired.map((r) => r.id)).not.toContain(notDue.id);
      expect(expired.find((r) => r.id === due.id)).toMatchObject({
        status: "timed_out",
        errorCode: "run_timed_out",
        errorMessage: "run exceeded its timeout of 1000 ms",
        endedAt: new Date(clock).toISOString(),
      });
      expect((await store.listRunEvents(due.id, { limit: 10 })).at(-1)).toMatchObject({
        type: "run.timed_out",
        data: { errorCode: "run_timed_out", while: "parked" },
      });
      expect((await store.expireParkedRuns(100)).map((r) => r.id)).not.toContain(due.id);
      expect(await store.requestCancel(notDue.id)).toMatchObject({ kind: "cancelled", parked: true });

      // A cancel asked for while the run executes wins over its park: the execution ends it.
      const running = (await store.createRun(newRun("s-park-cancel-first"))).run;
      const claim = { runId: running.id, token: "t" };
      await store.startRun(claim, "w");
      expect(await store.requestCancel(running.id)).toMatchObject({ kind: "requested" });
      expect(await store.parkRun(claim, { tool: "x", state: null })).toBe("cancel_requested");
      expect(await store.getRun(running.id)).toMatchObject({ status: "running", workerId: "w" });
      expect(await store.finishRun(claim, { status: "cancelled" })).toMatchObject({ status: "cancelled" });
    });

    it("counts active runs by workspace, executing and parked apart", async () => {
      const before = await store.activeByWorkspace();
      const count = (list: typeof before, ws: string) =>
        list.find((a) => a.workspaceId === ws) ?? { executingRuns: 0, parkedRuns: 0 };
      const a = (await store.createRun(newRun("s-ws-a", { workspaceId: "ws-active" }))).run;
      const b = (await store.createRun(newRun("s-ws-b", { workspaceId: "ws-active" }))).run;
      await store.createRun(newRun("s-ws-c", { workspaceId: "ws-active" }));
      await store.startRun({ runId: a.id, token: "a" }, "w");
      await store.startRun({ runId: b.id, token: "b" }, "w");
      await store.parkRun({ runId: b.id, token: "b" }, { tool: "x", state: null });
      const after = await store.activeByWorkspace();
      expect(count(after, "ws-active")).toEqual({
        workspaceId: "ws-active",
        executingRuns: 1,
        parkedRuns: 1,
      });
      expect(count(after, "default")).toEqual(count(before, "default"));
      await store.requestCancel(b.id);
      await store.finishRun({ runId: a.id, token: "a" }, { status: "completed" });
    });

    it("keeps the audit log: newest first, by actor or action, page by page, pruned by age", async () => {
      const alice = { name: "alice", role: "operator" as const };
      const bob = { name: "bob", role: "admin" as const };
      const start = clock;
      const entries = [
        {
          actor: alice,
          action: "run.requeue" as const,
          target: "run_1",
          params: { runId: "run_1" },
          outcome: { ok: true as const },
        },
        {
          actor: bob,
          action: "host.cordon" as const,
          target: "h-1",
          params: { hostId: "h-1" },
          outcome: { ok: true as const },
        },
        {
          actor: alice,
          action: "run.cancel" as const,
          target: "run_2",
          params: { runId: "run_2" },
          outcome: { ok: false as const, errorCode: "run_not_found", message: "no run with id run_2" },
        },
      ];
      for (const entry of entries) {
        clock += 1_000;
        await store.recordAudit(entry);
      }
      const all = await store.listAudit({ limit: 10 });
      expect(all.map((e) => [e.actor, e.role, e.action, e.target])).toEqual([
        ["alice", "operator", "run.cancel", "run_2"],
        ["bob", "admin", "host.cordon", "h-1"],
        ["alice", "operator", "run.requeue", "run_1"],
      ]);
      expect(all[0]).toMatchObject({
        at: new Date(start + 3_000).toISOString(),
        params: { runId: "run_2" },
        outcome: { ok: false, errorCode: "run_not_found" },
      });
      expect((await store.listAudit({ actor: "alice", limit: 10 })).map((e) => e.action)).toEqual([
        "run.cancel",
        "run.requeue",
      ]);
      expect((await store.listAudit({ action: "host.cordon", limit: 10 })).map((e) => e.actor)).toEqual([
        "bob",
      ]);
      const firstPage = await store.listAudit({ limit: 2 });
      const next = await store.listAudit({ limit: 2, beforeId: firstPage[1]!.id });
      expect(next.map((e) => e.action)).toEqual(["run.requeue"]);
      // Older than the second one: the first goes.
      expect(await store.pruneAudit(start + 1_500, 100)).toBe(1);
      expect((await store.listAudit({ limit: 10 })).map((e) => e.action)).toEqual([
        "run.cancel",
        "host.cordon",
      ]);
    });

    it("groups the dead letters by reason, error code and workspace, with their times and last executions", async () => {
      const ws = `dl-${kind}`;
      const other = `dl-other-${kind}`;
      const made: { id: string; at: number }[] = [];
      const dead = async (session: string, workspaceId: string, reason?: RecoveryReason) => {
        const run = (await store.createRun(newRun(session, { workspaceId }))).run;
        await store.startRun({ runId: run.id, token: `t-${session}` }, `worker-${session}`);
        clock += 10;
        await quarantine(store, run.id, clock, clock + 1, reason);
        made.push({ id: run.id, at: clock });
        return run.id;
      };
      const exhausted: string[] = [];
      for (let i = 0; i < 4; i++) exhausted.push(await dead(`s-dl-${kind}-${i}`, ws));
      const unavailable = await dead(`s-dl-${kind}-u`, ws, "requeue_unavailable");
      await dead(`s-dl-${kind}-o`, other);
      // Requeued, a run is no dead letter any more.
      await store.requeueRuns([exhausted[0]!], {
        by: "op",
        claimedBy: null,
        maxAttempts: 3,
        includeCancelled: false,
      });

      const { groups } = await store.deadLetters(ws);
      const errorCode = (await store.getRun(unavailable))?.errorCode;
      expect(errorCode).not.toBeNull();
      const at = (id: string) => new Date(made.find((m) => m.id === id)!.at).toISOString();
      expect(groups).toEqual([
        {
          reason: "max_attempts_exhausted",
          errorCode,
          workspaceId: ws,
          count: 3,
          oldestAt: at(exhausted[1]!),
          newestAt: at(exhausted[3]!),
          lastExecutions: [3, 2, 1].map((i) => ({
            runId: exhausted[i]!,
            workerId: `worker-s-dl-${kind}-${i}`,
            errorMessage: expect.any(String),
            at: at(exhausted[i]!),
          })),
        },
        expect.objectContaining({ reason: "requeue_unavailable", workspaceId: ws, count: 1 }),
      ]);
      expect((await store.deadLetters()).groups.map((g) => g.workspaceId)).toContain(other);
      // A group's runs, by the Storage filter its drill-down and its requeue use.
      const listed = await store.listRuns({
        recoveryState: ["quarantined"],
        recoveryReason: ["max_attempts_exhausted"],
        workspaceId: ws,
        limit: 10,
      });
      expect(listed.map((r) => r.id).sort()).toEqual(exhausted.slice(1).sort());
      // Requeued, the dead letters leave the later tests' overview alone.
      await store.requeueRuns(
        made.map((m) => m.id),
        { by: "op", claimedBy: null, maxAttempts: 3, includeCancelled: false },
      );
      expect((await store.deadLetters()).groups).toEqual([]);
    });

    it("runs a bulk job: its runs fixed at its start, acted on chunk by chunk under a lease, each outcome kept", async () => {
      const ws = `bulk-${kind}`;
      const quarantined = [];
      for (let i = 0; i < 3; i++) {
        const run = (await store.createRun(newRun(`s-bulk-q${i}`, { workspaceId: ws }))).run;
        await store.startRun({ runId: run.id, token: `q${i}` }, "w");
        clock += 10;
        await quarantine(store, run.id, clock);
        quarantined.push(run);
      }
      const plain = (await store.createRun(newRun("s-bulk-plain", { workspaceId: ws }))).run;
      await store.startRun({ runId: plain.id, token: "p" }, "w");
      await store.finishRun({ runId: plain.id, token: "p" }, { status: "failed", errorCode: "tool_failed" });
      const job = await store.createBulkJob({
        id: `bulk_${kind.toUpperCase().padEnd(26, "0").slice(0, 26)}`,
        action: "requeue",
        filter: { workspaceId: ws, status: ["failed"] },
        requestedBy: "alice",
        claimedBy: "ada-admin",
        includeCancelled: false,
        owner: "api-0",
        leaseMs: 10_000,
      });
      expect(job).toMatchObject({
        status: "running",
        total: 4,
        done: 0,
        outcomes: {},
        requestedBy: "alice",
        claimedBy: "ada-admin",
      });
      // A run made after the start is not the job's.
      clock += 1;
      const late = (await store.createRun(newRun("s-bulk-late", { workspaceId: ws }))).run;

      expect(await store.runBulkChunk(job.id, "api-1", 2, 10_000, 3)).toBeNull(); // not leased yet
      expect(await store.runBulkChunk(job.id, "api-0", 2, 10_000, 3)).toBeNull(); // its starter let it go
      expect(await store.leaseBulkJob("api-1", 10_000)).toMatchObject({ id: job.id });
      expect(await store.leaseBulkJob("api-2", 10_000)).toBeNull(); // held
      expect(await store.runBulkChunk(job.id, "api-2", 2, 10_000, 3)).toBeNull();
      const first = await store.runBulkChunk(job.id, "api-1", 2, 10_000, 3);
      expect(first?.job).toMatchObject({ status: "running", done: 2, outcomes: { requeued: 2 } });
      expect(first?.requeued.map((e) => e.runId)).toEqual([quarantined[0]!.id, quarantined[1]!.id]);
      // Its worker gone, the lease lapses and another takes the job where it was.
      clock += 10_001;
      expect(await store.leaseBulkJob("api-2", 10_000)).toMatchObject({ id: job.id });
      expect(await store.runBulkChunk(job.id, "api-1", 2, 10_000, 3)).toBeNull();
      const second = await store.runBulkChunk(job.id, "api-2", 2, 10_000, 3);
      expect(second?.job).toMatchObject({ status: "running", done: 4 });
      const last = await store.runBulkChunk(job.id, "api-2", 2, 10_000, 3);
      expect(last?.job).toMatchObject({
        status: "completed",
        done: 4,
        outcomes: { requeued: 3, run_requeue_not_supported: 1 },
      });
      expect(last?.job.endedAt).not.toBeNull();
      const items = await store.listBulkJobItems({ id: job.id, limit: 10 });
      expect(items.map((i) => [i.runId, i.outcome])).toEqual([
        ...quarantined.map((r) => [r.id, "requeued"]),
        [plain.id, "run_requeue_not_supported"],
      ]);
      expect(items[3]!.message).toMatch(/only runs that stale-run recovery/);
      expect(
        (await store.listBulkJobItems({ id: job.id, outcome: "requeued", afterPosition: 1, limit: 10 }))
          .length,
      ).toBe(2);
      for (const r of quarantined) {
        expect(await store.getRun(r.id)).toMatchObject({
          status: "queued",
          metadata: {
            recovery: {
              manualRequeueCount: 1,
              lastManualRequeueBy: "alice",
              lastManualRequeueClaimedBy: "ada-admin",
            },
          },
        });
      }
      expect((await store.getRun(late.id))?.status).toBe("queued");
      expect((await store.listBulkJobs(10)).map((j) => j.id)).toContain(job.id);
    });

    it("cancels by filter: queued and parked runs end at once, executing ones are asked; an aborted job stops", async () => {
      const ws = `bulk-cancel-${kind}`;
      const queued = (await store.createRun(newRun("s-bc-q", { workspaceId: ws }))).run;
      const executing = (await store.createRun(newRun("s-bc-x", { workspaceId: ws }))).run;
      await store.startRun({ runId: executing.id, token: "x" }, "w");
      const parked = (await store.createRun(newRun("s-bc-p", { workspaceId: ws }))).run;
      await store.startRun({ runId: parked.id, token: "p" }, "w");
      await store.parkRun({ runId: parked.id, token: "p" }, { tool: "t", state: null });
      const job = await cancelJob(store, `bulk_C${kind.toUpperCase().padEnd(25, "0").slice(0, 25)}`, ws);
      await store.leaseBulkJob("api-1", 10_000);
      const chunk = await store.runBulkChunk(job.id, "api-1", 10, 10_000, 3);
      expect(chunk?.job).toMatchObject({
        status: "completed",
        outcomes: { cancelled: 2, cancel_requested: 1 },
      });
      expect(chunk?.cancelRequested).toEqual([executing.id]);
      expect(chunk?.parkedCancelled).toEqual([{ id: parked.id, sessionId: "s-bc-p" }]);
      const statuses = await Promise.all(
        [queued, executing, parked].map(async (r) => (await store.getRun(r.id))?.status),
      );
      expect(statuses).toEqual(["cancelled", "running", "cancelled"]);
      expect((await store.getRun(executing.id))?.cancelRequestedAt).not.toBeNull();

      const aborted = await cancelJob(store, `bulk_A${kind.toUpperCase().padEnd(25, "0").slice(0, 25)}`, ws);
      expect(await store.abortBulkJob(aborted.id)).toMatchObject({ status: "aborted", done: 0 });
      expect(await store.leaseBulkJob("api-1", 10_000)).toBeNull();
      expect(await store.abortBulkJob(aborted.id)).toMatchObject({ status: "aborted" });
      expect(await store.abortBulkJob("bulk_00000000000000000000000000")).toBeNull();
    });

    it("dates a quarantine by the store's clock, in the columns and the metadata alike", async () => {
      const run = (await store.createRun(newRun("s-dated"))).run;
      await store.startRun({ runId: run.id, token: "a" }, "w");
      clock += 100;
      // The recovering host's clock lags the store's by a few milliseconds.
      const recovered = await quarantine(store, run.id, clock - 3, clock + 1);
      const at = recovered!.run.metadata.recovery!.deadLetter!.at;
      expect(at).toBe(new Date(clock).toISOString());
      const { recovery } = await store.overview();
      expect(recovery).toMatchObject({
        oldestQuarantinedAt: at,
        newestQuarantinedAt: at,
        newestRecoveredAt: at,
      });
    });

    it("requeues by hand only recovery-managed failed runs, at the tail, with a fresh budget", async () => {
      const stale = (await store.createRun(newRun("s-manual"))).run;
      const plain = (await store.createRun(newRun("s-manual-other"))).run;
      const done = (await store.createRun(newRun("s-manual-done"))).run;
      await store.startRun({ runId: stale.id, token: "a" }, "w");
      await store.startRun({ runId: plain.id, token: "b" }, "w");
      await store.startRun({ runId: done.id, token: "c" }, "w");
      await store.finishRun({ runId: plain.id, token: "b" }, { status: "failed", errorCode: "tool_failed" });
      await store.finishRun({ runId: done.id, token: "c" }, { status: "completed" });
      clock += 100;
      await quarantine(store, stale.id, clock);
      const later = (await store.createRun(newRun("s-manual"))).run;
      const outcomes = await store.requeueRuns([stale.id, plain.id, done.id, "run_missing"], {
        by: "alice",
        claimedBy: null,
        maxAttempts: 3,
        includeCancelled: false,
      });
      expect(outcomes.map((o) => (o.ok ? "ok" : o.code))).toEqual([
        "ok",
        "run_requeue_not_supported",
        "run_requeue_invalid_status",
        "run_not_found",
      ]);
      const requeued = (await store.getRun(stale.id))!;
      expect(requeued).toMatchObject({
        status: "queued",
        errorCode: null,
        startedAt: null,
        recoveryState: "requeued",
        metadata: {
          recoveryAttempts: 0,
          recovery: {
            strategy: "manual",
            reason: "manual_operator_requeue",
            manualRequeueCount: 1,
            lastManualRequeueBy: "alice",
          },
        },
      });
      expect(requeued.metadata.recovery).not.toHaveProperty("deadLetter");
      // The tail of its session: behind the run submitted after it.
      const queued = (await store.listAwaitingSlot({ limit: 1000 })).filter(
        (e) => e.sessionId === "s-manual",
      );
      expect(queued.map((e) => e.runId)).toEqual([later.id, stale.id]);
    });

    it("recovery honours a cancel requested before or while the run went stale: cancelled, never requeued", async () => {
      const run = (await store.createRun(newRun("s-rec-cancel"))).run;
      await store.startRun({ runId: run.id, token: "dead" }, "host-x/w1");
      expect(await store.requestCancel(run.id)).toMatchObject({ kind: "requested" });
      clock += 100;
      const seen: unknown[] = [];
      const recovered = await store.recoverRun({
        runId: run.id,
        decide: (locked) => {
          seen.push(locked);
          return locked.cancelRequested
            ? { action: "cancel" }
            : { action: "requeue", state: "requeued", reason: "automatic_requeue" };
        },
        context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "host-y" },
        lastSeenBefore: clock,
      });
      expect(seen).toEqual([
        {
          status: "running",
          recoveryAttempts: 0,
          cancelRequested: true,
          hasSession: true,
          queueAvailable: true,
          resumable: true,
          interrupted: null,
        },
      ]);
      expect(recovered).toMatchObject({
        action: { action: "cancel" },
        queueEntry: null,
        previousClaimToken: "dead",
      });
      expect(recovered?.run).toMatchObject({ status: "cancelled", errorCode: null, recoveryState: null });
      expect(recovered?.run.cancelRequestedAt).not.toBeNull();
      expect(recovered?.run.metadata).not.toHaveProperty("recoveryAttempts");
      const events = await store.listRunEvents(run.id, { limit: 100 });
      expect(events.at(-1)).toMatchObject({
        type: "run.cancelled",
        data: { reason: "cancel_requested", recoveredBy: "host-y" },
      });
      expect(await store.finishRun({ runId: run.id, token: "dead" }, { status: "completed" })).toBeNull();
      // A cancelled run starts again only when the operator says so explicitly.
      const request = { by: "ops", claimedBy: null, maxAttempts: 3, includeCancelled: false };
      const [refused] = await store.requeueRuns([run.id], request);
      expect(refused).toMatchObject({ ok: false, code: "run_requeue_invalid_status" });
      expect((await store.getRun(run.id))?.status).toBe("cancelled");
      const [accepted] = await store.requeueRuns([run.id], { ...request, includeCancelled: true });
      expect(accepted).toMatchObject({ ok: true, previousStatus: "cancelled" });
      expect(await store.getRun(run.id)).toMatchObject({ status: "queued", cancelRequestedAt: null });
    });

    it("decides a stale run from the facts read under its row lock: its session and its place in the queue", async () => {
      const run = (await store.createRun(newRun("s-rec-facts"))).run;
      await store.startRun({ runId: run.id, token: "dead" }, "host-f/w1");
      clock += 100;
      const seen: unknown[] = [];
      const recovered = await store.recoverRun({
        runId: run.id,
        decide: (locked) => {
          seen.push(locked);
          return { action: "requeue", state: "requeued", reason: "automatic_requeue" };
        },
        context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
        lastSeenBefore: clock,
      });
      expect(seen).toEqual([
        {
          status: "running",
          recoveryAttempts: 0,
          cancelRequested: false,
          hasSession: true,
          queueAvailable: true,
          resumable: true,
          interrupted: null,
        },
      ]);
      expect(recovered?.queueEntry).toMatchObject({ runId: run.id, sessionId: "s-rec-facts", queueSeq: 1 });
    });

    it("a wait decision leaves the stale run as it is", async () => {
      const run = (await store.createRun(newRun("s-rec-wait"))).run;
      await store.startRun({ runId: run.id, token: "alive" }, "host-z/w1");
      clock += 100;
      const recovered = await store.recoverRun({
        runId: run.id,
        decide: () => ({ action: "wait" }),
        context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
        lastSeenBefore: clock,
      });
      expect(recovered).toBeNull();
      expect(await store.getRun(run.id)).toMatchObject({ status: "running", attempt: 1 });
      expect(await store.heartbeat([{ runId: run.id, token: "alive" }])).toMatchObject({ fenced: [] });
    });

    it("a failed run whose cancel was requested is requeued only with includeCancelled", async () => {
      const run = (await store.createRun(newRun("s-manual-cancel"))).run;
      await store.startRun({ runId: run.id, token: "t" }, "w");
      await store.requestCancel(run.id);
      clock += 100;
      await quarantine(store, run.id, clock);
      const request = { by: "ops", claimedBy: null, maxAttempts: 3, includeCancelled: false };
      expect(await store.requeueRuns([run.id], request)).toMatchObject([
        { ok: false, code: "run_requeue_cancel_requested" },
      ]);
      expect(await store.requeueRuns([run.id], { ...request, includeCancelled: true })).toMatchObject([
        { ok: true, previousStatus: "failed" },
      ]);
    });

    it("lists runs by filters, newest first, page by page; counts the overview", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock += 10;
        ids.push((await store.createRun(newRun(`s-list-${i % 2}`, { workspaceId: "ws-list" }))).run.id);
      }
      const page1 = await store.listRuns({ workspaceId: "ws-list", limit: 2 });
      expect(page1.map((r) => r.id)).toEqual([ids[4], ids[3]]);
      const last = page1[1]!;
      const page2 = await store.listRuns({
        workspaceId: "ws-list",
        after: { createdAt: Date.parse(last.createdAt), id: last.id },
        limit: 10,
      });
      expect(page2.map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect((await store.listRuns({ sessionId: "s-list-1", limit: 10 })).map((r) => r.id)).toEqual([
        ids[3],
        ids[1],
      ]);
      expect((await store.listRuns({ runId: ids[2], limit: 10 })).map((r) => r.id)).toEqual([ids[2]]);
      expect(
        (
          await store.listRuns({
            workspaceId: "ws-list",
            createdFrom: Date.parse(page1[1]!.createdAt),
            limit: 10,
          })
        ).length,
      ).toBe(2);
      expect(
        (await store.listRuns({ recoveryState: ["requeued"], limit: 10 })).map((r) => r.recoveryState),
      ).toContain("requeued");
      expect(
        (await store.listRuns({ status: ["completed", "cancelled"], errorCode: ["tool_failed"], limit: 10 }))
          .length,
      ).toBe(0);

      const overview = await store.overview();
      expect(Object.values(overview.statusCounts).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
      // No parked run of this store has its result waiting: every run awaiting a slot is queued.
      expect(overview.statusCounts.queued).toBe(await store.countAwaitingSlot());
      expect(overview.recovery.trackedRuns).toBeGreaterThanOrEqual(2);
      expect(overview.recovery.workerRecoveryFailures).toBeGreaterThanOrEqual(1);
      expect(overview.recovery.newestRecoveredAt).not.toBeNull();
    });

    it("records a requeue alike by recovery and by hand: run.requeued, run.queued and a system step", async () => {
      const run = (await store.createRun(newRun("s-requeue-record"))).run;
      await store.startRun({ runId: run.id, token: "a" }, "w");
      clock += 100;
      const recovered = await store.recoverRun({
        runId: run.id,
        decide: () => ({ action: "requeue", state: "requeued", reason: "automatic_requeue" }),
        context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
        lastSeenBefore: clock,
      });
      expect(recovered?.queueEntry).toMatchObject({ runId: run.id, queueSeq: 1 });
      const automaticAt = new Date(clock).toISOString();
      await store.startRun({ runId: run.id, token: "b" }, "w");
      clock += 100;
      await quarantine(store, run.id, clock);
      clock += 100;
      // The caller asked, saying it was for someone else: the record names the caller, the claim beside.
      const [manual] = await store.requeueRuns([run.id], {
        by: "alice",
        claimedBy: "ada-admin",
        maxAttempts: 3,
        includeCancelled: false,
      });
      expect(manual).toMatchObject({ ok: true, previousStatus: "failed" });
      expect((await store.getRun(run.id))?.metadata.recovery).toMatchObject({
        lastManualRequeueBy: "alice",
        lastManualRequeueClaimedBy: "ada-admin",
      });
      const manualAt = new Date(clock).toISOString();
      const automatic = { reason: "automatic_requeue", recoveryAttempts: 1, from: "running" };
      const byHand = {
        reason: "manual_operator_requeue",
        requestedBy: "alice",
        claimedBy: "ada-admin",
        from: "failed",
        fromStart: false,
      };
      const events = (await store.listRunEvents(run.id, { limit: 100 })).filter(
        (e) => e.type === "run.requeued" || e.type === "run.queued",
      );
      expect(events.map((e) => [e.type, e.at, e.data])).toEqual([
        ["run.queued", run.createdAt, { seq: 1, priority: "normal" }],
        ["run.requeued", automaticAt, automatic],
        ["run.queued", automaticAt, automatic],
        ["run.requeued", manualAt, byHand],
        ["run.queued", manualAt, byHand],
      ]);
      const steps = (await store.listRunSteps(run.id)).filter((s) => s.kind === "system");
      expect(steps).toMatchObject([
        {
          name: "run.requeued",
          status: "completed",
          startedAt: automaticAt,
          endedAt: automaticAt,
          output: automatic,
        },
        { name: "run.requeued", status: "completed", startedAt: manualAt, endedAt: manualAt, output: byHand },
      ]);
    });
  });

  describe.each(kinds)("status counts on %s", (kind) => {
    let t: TestStore;
    afterAll(() => t?.dispose());

    it("counts every status and recovery state as the runs move, through folds of the counters", async () => {
      t = await createTestStore(kind, { foldCountsEvery: 2 });
      const store = t.store;
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push((await store.createRun(newRun(`s-count-${i}`))).run);
      const claims = runs.map((r, i) => ({ runId: r.id, token: `t${i}` }));
      for (const c of claims.slice(0, 4)) await store.startRun(c, "w");
      await store.heartbeat(claims.slice(0, 4));
      await store.finishRun(claims[0]!, { status: "completed" });
      await store.finishRun(claims[1]!, { status: "failed", errorCode: "tool_failed" });
      await store.finishRun(claims[2]!, { status: "completed" });
      expect((await store.requestCancel(runs[4]!.id)).kind).toBe("cancelled");
      // Folds run in the background: let them land, then count again.
      await new Promise((r) => setTimeout(r, 50));
      const expected = {
        queued: 0,
        running: 1,
        waiting_tool: 0,
        completed: 2,
        failed: 1,
        cancelled: 1,
        timed_out: 0,
      };
      expect((await store.overview()).statusCounts).toEqual(expected);
      await store.createRun(newRun("s-count-late"));
      expect((await store.overview()).statusCounts).toEqual({ ...expected, queued: 1 });

      // Recovery moves the recovery counters with the statuses; a manual requeue moves them back.
      await quarantine(store, runs[3]!.id, Date.now(), Date.now() + 60_000);
      let overview = await store.overview();
      expect(overview.statusCounts).toMatchObject({ running: 0, failed: 2, queued: 1 });
      expect(overview.recovery).toMatchObject({
        trackedRuns: 1,
        quarantinedRuns: 1,
        workerRecoveryFailures: 1,
        topQuarantineReasons: [{ reason: "max_attempts_exhausted", count: 1 }],
      });
      await store.requeueRuns([runs[3]!.id], {
        by: "ops",
        claimedBy: null,
        maxAttempts: 3,
        includeCancelled: false,
      });
      overview = await store.overview();
      expect(overview.statusCounts).toMatchObject({ running: 0, failed: 1, queued: 2 });
      expect(overview.recovery).toMatchObject({
        trackedRuns: 1,
        quarantinedRuns: 0,
        requeuedRuns: 1,
        workerRecoveryFailures: 0,
        topQuarantineReasons: [],
        oldestQuarantinedAt: null,
      });
    });
  });

  describe.each(kinds)("the writes announced by the store on %s", (kind) => {
    let t: TestStore;
    let store: RunStore;
    let clock = 1_700_000_000_000;
    /** What the store's announcer heard: one list of sessions per committed write. */
    const heard: string[][] = [];
    beforeAll(async () => {
      t = await createTestStore(kind, { now: () => clock });
      store = t.store;
      store.announceWrites((sessionIds) => heard.push(sessionIds));
    });
    afterAll(() => t?.dispose());

    /** The announcements a call made, once it returned. */
    async function announced(call: () => Promise<unknown>): Promise<string[][]> {
      heard.length = 0;
      await call();
      return [...heard];
    }

    it("announces each write of a run's life with its session, once, and nothing for a write refused", async () => {
      const s = `ann-life-${kind}`;
      const { run } = await store.createRun(newRun(s, { idempotencyKey: "k" }));
      const claim = { runId: run.id, token: "t" };
      const stale = { runId: run.id, token: "other" };
      const later = (await store.createRun(newRun(s))).run;
      const cases: [string, () => Promise<unknown>, string[][]][] = [
        ["a repeated submission", () => store.createRun(newRun(s, { idempotencyKey: "k" })), []],
        ["a start", () => store.startRun(claim, "w"), [[s]]],
        ["a start behind an unfinished run", () => store.startRun({ runId: later.id, token: "l" }, "w"), []],
        ["an event", () => store.appendEvent(claim, "hook.notice", { n: 1 }), [[s]]],
        ["an event of a fenced claim", () => store.appendEvent(stale, "hook.notice"), []],
        ["a heartbeat", () => store.heartbeat([claim]), []],
        ["a step's start", () => store.startStep(claim, { kind: "tool", name: "x" }), []],
        ["a wait for a tool", () => store.waitForTool(claim, "gate"), [[s]]],
        ["a tool result", () => store.deliverToolResult(run.id, "gate", 1), [[s]]],
        ["a tool result of the wrong tool", () => store.deliverToolResult(run.id, "other", 1), []],
        ["the result taken", () => store.takeToolResult(claim), [[s]]],
        ["a park", () => store.parkRun(claim, { tool: "gate", state: { at: 1 } }), [[s]]],
        ["a parked run's result", () => store.deliverToolResult(run.id, "gate", 2), [[s]]],
        ["a resume", () => store.resumeRun(claim, "w"), [[s]]],
        ["an end", () => store.finishRun(claim, { status: "completed" }), [[s]]],
        ["an end by a fenced claim", () => store.finishRun(stale, { status: "failed" }), []],
        ["a cancel of an ended run", () => store.requestCancel(run.id), []],
        ["a cancel of a queued run", () => store.requestCancel(later.id), [[s]]],
        ["a read", () => store.listRunEvents(run.id, { limit: 100 }), []],
      ];
      const seen = [];
      for (const [what, call] of cases) seen.push([what, await announced(call)]);
      expect(seen).toEqual(cases.map(([what, , expected]) => [what, expected]));
    });

    it("announces a batch's sessions in one, and nothing for a batch refused whole", async () => {
      const [a, b] = [`ann-batch-a-${kind}`, `ann-batch-b-${kind}`];
      await store.createRun(newRun(b, { workspaceId: "elsewhere" }));
      expect(
        await announced(() => store.createRuns([newRun(a), newRun(a), newRun(`${b}-2`)], { atomic: true })),
      ).toEqual([[a, `${b}-2`]]);
      expect(
        await announced(() => store.createRuns([newRun(a), newRun(b)], { atomic: true }).catch(() => null)),
      ).toEqual([]);
    });

    it("announces the sessions of what recovery, requeues, parked deadlines and bulk chunks wrote", async () => {
      const s = `ann-admin-${kind}`;
      const stale = (await store.createRun(newRun(`${s}-stale`))).run;
      await store.startRun({ runId: stale.id, token: "t" }, "w");
      clock += 10;
      expect(await announced(() => quarantine(store, stale.id, clock))).toEqual([[`${s}-stale`]]);
      expect(
        await announced(() =>
          store.requeueRuns([stale.id], {
            by: "op",
            claimedBy: null,
            maxAttempts: 3,
            includeCancelled: false,
          }),
        ),
      ).toEqual([[`${s}-stale`]]);

      const parked = (await store.createRun(newRun(`${s}-parked`, { timeoutMs: 1_000 }))).run;
      await store.startRun({ runId: parked.id, token: "p" }, "w");
      await store.parkRun({ runId: parked.id, token: "p" }, { tool: "t", state: null });
      clock += 2_000;
      expect(await announced(() => store.expireParkedRuns(10))).toEqual([[`${s}-parked`]]);

      const ws = `ann-bulk-${kind}`;
      const queued = [
        (await store.createRun(newRun(`${s}-q1`, { workspaceId: ws }))).run,
        (await store.createRun(newRun(`${s}-q2`, { workspaceId: ws }))).run,
      ];
      const job = await cancelJob(store, `bulk_N${kind.toUpperCase().padEnd(25, "0").slice(0, 25)}`, ws);
      await store.leaseBulkJob("api-1", 10_000);
      expect(await announced(() => store.runBulkChunk(job.id, "api-1", 10, 10_000, 3))).toEqual([
        queued.map((r) => r.sessionId),
      ]);
      // A chunk of a job not leased to its caller writes nothing, and announces nothing.
      expect(await announced(() => store.runBulkChunk(job.id, "api-2", 10, 10_000, 3))).toEqual([]);
    });
  });
}
