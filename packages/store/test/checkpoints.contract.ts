import type { LockedStaleRun, RunStore } from "@oah/store";
import { createTestStore, type InProcessStoreKind, newRun, type TestStore } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Recovery requeueing a stale run, recording what it was shown under the run's lock. */
async function requeueStale(store: RunStore, runId: string, at: number): Promise<LockedStaleRun | null> {
  let seen: LockedStaleRun | null = null;
  await store.recoverRun({
    runId,
    decide: (locked) => {
      seen = locked;
      return { action: "requeue", state: "requeued", reason: "automatic_requeue" };
    },
    context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
    lastSeenBefore: at,
  });
  return seen;
}

/** The checkpoints of runs (docs/spec.md §7), on each of `kinds`. */
export function checkpointsContract(kinds: readonly InProcessStoreKind[]): void {
  describe.each(kinds)("checkpoints on %s", (kind) => {
    let t: TestStore;
    let store: RunStore;
    let clock = 1_700_000_000_000;

    beforeAll(async () => {
      t = await createTestStore(kind, { now: () => clock++ });
      store = t.store;
    });
    afterAll(() => t?.dispose());

    it("saves each with its step's end, fenced; a later attempt reads the last state, the whole log, the step in flight and what it avoids", async () => {
      const run = (await store.createRun(newRun(`s-cp-${kind}`))).run;
      const claim = { runId: run.id, token: "t1" };
      await store.startRun(claim, "w1");
      expect(await store.readResumption(run.id)).toBeNull();
      const shell = (await store.startStep(claim, { kind: "tool", name: "shell", onInterrupt: "rerun" }))!;
      expect(
        await store.finishStep(
          claim,
          shell,
          { status: "completed" },
          { state: { next: 1 }, appended: ["a"] },
        ),
      ).toBe(true);
      const model = (await store.startStep(claim, { kind: "model", name: "m" }))!;
      const usage = { promptTokens: 20, completionTokens: 10, totalTokens: 30 };
      const ended = await store.finishStep(
        claim,
        model,
        { status: "completed", output: { content: "b", usage } },
        { state: { next: 2 }, appended: ["b", "c"] },
      );
      expect(ended).toBe(true);
      expect(await store.saveCheckpoint(claim, { state: { next: 3 } })).toBe(true);
      const inFlight = (await store.startStep(claim, { kind: "tool", name: "shell", onInterrupt: "fail" }))!;
      // A stale holder writes none: neither its step's end nor a checkpoint.
      const stolen = { runId: run.id, token: "stale" };
      expect(await store.finishStep(stolen, inFlight, { status: "completed" }, { state: { next: 99 } })).toBe(
        false,
      );
      expect(await store.saveCheckpoint(stolen, { state: { next: 99 } })).toBe(false);

      expect(await store.readResumption(run.id)).toEqual({
        state: { next: 3 },
        log: ["a", "b", "c"],
        stepId: model,
        attempt: 1,
        interrupted: { stepId: inFlight, kind: "tool", name: "shell", onInterrupt: "fail" },
        avoided: { steps: { tool: 1, model: 1 }, modelTokens: 30 },
      });
      expect((await store.listCheckpoints(run.id)).map((c) => [c.stepId, c.attempt])).toEqual([
        [shell, 1],
        [model, 1],
        [model, 1],
      ]);
      // Recovery is shown the command in flight and its policy; its record of the requeue is no step of the run.
      expect(await requeueStale(store, run.id, clock + 1)).toMatchObject({
        interrupted: "fail",
        resumable: true,
      });
      expect((await store.readResumption(run.id))!.interrupted).toMatchObject({ stepId: inFlight });
    });

    it("keeps a held wait's tool and a result delivered before its execution died, for the next attempt", async () => {
      const run = (await store.createRun(newRun(`s-cp-hold-${kind}`))).run;
      const first = { runId: run.id, token: "h1" };
      await store.startRun(first, "w1");
      await store.saveCheckpoint(first, { state: { waitingAt: 0 } });
      expect(await store.waitForTool(first, "approve")).toBe(true);
      expect(await store.deliverToolResult(run.id, "approve", { ok: true })).toMatchObject({
        kind: "accepted",
      });
      expect(await requeueStale(store, run.id, clock + 1)).toMatchObject({
        status: "waiting_tool",
        resumable: true,
      });
      expect(await store.getRun(run.id)).toMatchObject({ status: "queued", waitingTool: "approve" });
      const second = { runId: run.id, token: "h2" };
      expect(await store.startRun(second, "w2")).toMatchObject({ kind: "started", run: { attempt: 2 } });
      expect(await store.waitForTool(second, "approve")).toBe(true);
      expect(await store.takeToolResult(second)).toEqual({ kind: "taken", output: { ok: true } });
    });

    it("shows recovery a waiting run without a checkpoint as not resumable", async () => {
      const run = (await store.createRun(newRun(`s-cp-nohold-${kind}`))).run;
      const claim = { runId: run.id, token: "n1" };
      await store.startRun(claim, "w1");
      await store.waitForTool(claim, "approve");
      expect(await requeueStale(store, run.id, clock + 1)).toMatchObject({
        resumable: false,
        interrupted: null,
      });
    });

    it("drops a run's checkpoints when an operator requeues it from the start, and keeps them otherwise", async () => {
      const runs = await Promise.all(
        [0, 1].map(async (i) => (await store.createRun(newRun(`s-cp-rq-${kind}-${i}`))).run),
      );
      for (const run of runs) {
        const claim = { runId: run.id, token: `r-${run.id}` };
        await store.startRun(claim, "w1");
        await store.saveCheckpoint(claim, { state: { next: 1 } });
        // Quarantined by recovery: the runs an operator requeues by hand.
        await store.recoverRun({
          runId: run.id,
          decide: () => ({ action: "fail", state: "quarantined", reason: "max_attempts_exhausted" }),
          context: { policy: { strategy: "requeue_running", maxAttempts: 3 }, by: "h" },
          lastSeenBefore: clock + 1,
        });
      }
      const request = { by: "olga", claimedBy: null, maxAttempts: 3, includeCancelled: false };
      expect(await store.requeueRuns([runs[0]!.id], request)).toMatchObject([{ ok: true }]);
      expect(await store.requeueRuns([runs[1]!.id], { ...request, fromStart: true })).toMatchObject([
        { ok: true },
      ]);
      expect(await store.readResumption(runs[0]!.id)).toMatchObject({ state: { next: 1 } });
      expect(await store.readResumption(runs[1]!.id)).toBeNull();
      const requeued = (await store.listRunEvents(runs[1]!.id, { limit: 20 })).find(
        (e) => e.type === "run.requeued",
      );
      expect(requeued?.data).toMatchObject({ fromStart: true, requestedBy: "olga" });
    });

    it("answers the run a later agent run goes on from: the latest that completed, or was cut short after a checkpoint", async () => {
      const session = `s-cp-carried-${kind}`;
      const ended = async (
        executor: "agent" | "script",
        outcome: {
          status: "completed" | "cancelled" | "failed" | "timed_out";
          output?: unknown;
          errorCode?: string;
          errorMessage?: string;
        },
        appended?: string[],
      ) => {
        const run = (await store.createRun(newRun(session, { executor }))).run;
        const claim = { runId: run.id, token: `c-${run.id}` };
        await store.startRun(claim, "w1");
        if (appended) await store.saveCheckpoint(claim, { state: { calls: 1 }, appended });
        await store.finishRun(claim, outcome);
        return run;
      };
      const completed = await ended("agent", { status: "completed", output: { messages: ["a"] } }, ["a"]);
      const cancelled = await ended(
        "agent",
        { status: "cancelled", errorMessage: "interrupted by run run_X" },
        ["b"],
      );
      const bare = await ended("agent", { status: "cancelled" });
      const failed = await ended("agent", { status: "failed", errorCode: "model_failed" }, ["d"]);
      const script = await ended("script", { status: "completed", output: "e" });
      const timedOut = await ended(
        "agent",
        { status: "timed_out", errorCode: "run_timed_out", errorMessage: "run exceeded its timeout" },
        ["f", "g"],
      );
      const before = (run: { seq: number }) => store.previousRun(session, run.seq, "agent");

      expect(await store.previousRun(session, completed.seq, "agent")).toBeNull();
      // A completed run leaves its output; its checkpoints are not read.
      expect(await before(cancelled)).toEqual({
        id: completed.id,
        status: "completed",
        errorCode: null,
        errorMessage: null,
        output: { messages: ["a"] },
        checkpoints: null,
      });
      const cut = {
        id: cancelled.id,
        status: "cancelled",
        errorMessage: "interrupted by run run_X",
        output: null,
        checkpoints: { state: { calls: 1 }, log: ["b"] },
      };
      // A cancel without a checkpoint, a failure and another executor's run are passed over.
      for (const later of [bare, failed, script, timedOut]) expect(await before(later)).toMatchObject(cut);
      expect(await store.previousRun(session, timedOut.seq + 1, "agent")).toMatchObject({
        id: timedOut.id,
        status: "timed_out",
        errorCode: "run_timed_out",
        checkpoints: { log: ["f", "g"] },
      });
      // By reference: a run of the session, whatever came after it; none of another session.
      expect(await store.carriedRun(session, cancelled.id)).toMatchObject(cut);
      expect(await store.carriedRun("s-cp-elsewhere", cancelled.id)).toBeNull();
    });

    it("forks a run from a step: a new run at the session's tail, going on from the checkpoint before it", async () => {
      const session = `s-cp-fork-${kind}`;
      const source = (await store.createRun(newRun(session, { input: { steps: [], marker: "source" } }))).run;
      const claim = { runId: source.id, token: "f1" };
      await store.startRun(claim, "w1");
      const steps: number[] = [];
      for (let i = 0; i < 3; i++) {
        const id = (await store.startStep(claim, { kind: "model", name: `m${i}` }))!;
        await store.finishStep(
          claim,
          id,
          { status: "completed" },
          { state: { calls: i + 1 }, appended: [`msg${i}`] },
        );
        steps.push(id);
      }
      await store.finishRun(claim, { status: "completed", output: "done" });
      const later = (await store.createRun(newRun(session))).run;

      const fork = await store.forkRun({
        id: "run_01JFORK0000000000000000001",
        runId: source.id,
        fromStep: steps[2]!,
      });
      expect(fork.run).toMatchObject({
        sessionId: session,
        seq: later.seq + 1,
        status: "queued",
        input: { steps: [], marker: "source" },
        forkedFrom: { runId: source.id, stepId: steps[2] },
      });
      // It goes on after the source's second step, which it does not do again, nor the first.
      expect(await store.readResumption(fork.run.id)).toMatchObject({
        state: { calls: 2 },
        log: ["msg0", "msg1"],
        stepId: steps[1],
        interrupted: null,
        avoided: { steps: { model: 2 } },
      });
      expect((await store.listCheckpoints(fork.run.id)).map((c) => [c.attempt, c.stepId])).toEqual([
        [0, steps[0]],
        [0, steps[1]],
      ]);
      // A fork of the fork from its own first step inherits what the fork inherited.
      const laterClaim = { runId: later.id, token: "f3" };
      await store.startRun(laterClaim, "w1");
      await store.finishRun(laterClaim, { status: "completed", output: null });
      const forkClaim = { runId: fork.run.id, token: "f2" };
      await store.startRun(forkClaim, "w1");
      const own = (await store.startStep(forkClaim, { kind: "model", name: "m2 again" }))!;
      await store.finishStep(
        forkClaim,
        own,
        { status: "completed" },
        { state: { calls: 3 }, appended: ["again"] },
      );
      await store.finishRun(forkClaim, { status: "completed", output: "again" });
      const again = await store.forkRun({
        id: "run_01JFORK0000000000000000005",
        runId: fork.run.id,
        fromStep: own,
      });
      expect(await store.readResumption(again.run.id)).toMatchObject({
        state: { calls: 2 },
        log: ["msg0", "msg1"],
        stepId: steps[1],
        avoided: { steps: { model: 2 } },
      });
      // From its first step: nothing to go on from.
      const fresh = await store.forkRun({
        id: "run_01JFORK0000000000000000002",
        runId: source.id,
        fromStep: steps[0]!,
      });
      expect(await store.readResumption(fresh.run.id)).toBeNull();
      const queued = (await store.listRunEvents(fork.run.id, { limit: 5 }))[0];
      expect(queued).toMatchObject({ type: "run.queued", data: { forkedFrom: { runId: source.id } } });
      await expect(
        store.forkRun({ id: "run_01JFORK0000000000000000003", runId: source.id, fromStep: 999_999 }),
      ).rejects.toMatchObject({ code: "step_not_found" });
      await expect(
        store.forkRun({
          id: "run_01JFORK0000000000000000004",
          runId: "run_01JNOSUCH00000000000000000",
          fromStep: 1,
        }),
      ).rejects.toMatchObject({ code: "run_not_found" });
    });
  });
}
