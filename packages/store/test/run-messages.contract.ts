import type { RunStore } from "@oah/store";
import { createTestStore, type InProcessStoreKind, newRun, refusalOf, type TestStore } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const agentInput = (prompt: string) => ({
  prompt,
  tools: { shell: false, shellOnInterrupt: "rerun", client: [] },
  maxSteps: 16,
});

/** Messages to running agents (docs/spec.md §5, *Steering*), on each of `kinds`. */
export function runMessagesContract(kinds: readonly InProcessStoreKind[]): void {
  describe.each(kinds)("messages to a run on %s", (kind) => {
    let t: TestStore;
    let store: RunStore;
    let clock = 1_700_000_000_000;
    let sessions = 0;
    const session = () => `s-steer-${kind}-${++sessions}`;
    const agentRun = (sessionId: string, prompt = "go", more = {}) =>
      newRun(sessionId, { executor: "agent", input: agentInput(prompt), ...more });

    beforeAll(async () => {
      t = await createTestStore(kind, { now: () => clock++ });
      store = t.store;
    });
    afterAll(() => t?.dispose());

    it("are taken in the order they were written, after any one already taken, in every unfinished status", async () => {
      const s = session();
      const run = (await store.createRun(agentRun(s))).run;
      const first = await store.postMessage(run.id, "while queued");
      expect(first.run.status).toBe("queued");
      const claim = { runId: run.id, token: "t1" };
      await store.startRun(claim, "w1");
      const second = await store.postMessage(run.id, "while running");
      expect(second.run.status).toBe("running");
      expect(await store.waitForTool(claim, "ask")).toBe(true);
      const third = await store.postMessage(run.id, "while waiting");
      expect(third.run.status).toBe("waiting_tool");
      expect(first.messageId).toBeLessThan(second.messageId);
      expect(second.messageId).toBeLessThan(third.messageId);
      expect(await store.pendingMessages(run.id, 0)).toEqual([
        { id: first.messageId, content: "while queued" },
        { id: second.messageId, content: "while running" },
        { id: third.messageId, content: "while waiting" },
      ]);
      expect((await store.pendingMessages(run.id, second.messageId)).map((m) => m.content)).toEqual([
        "while waiting",
      ]);
      // Each is the run's event run.message, with its content.
      const events = (await store.listRunEvents(run.id, { limit: 100 })).filter(
        (e) => e.type === "run.message",
      );
      expect(events.map((e) => [e.id, e.data])).toEqual([
        [first.messageId, { content: "while queued" }],
        [second.messageId, { content: "while running" }],
        [third.messageId, { content: "while waiting" }],
      ]);
    });

    it("to a parked run are kept for its resume", async () => {
      const s = session();
      const run = (await store.createRun(agentRun(s))).run;
      const claim = { runId: run.id, token: "t1" };
      await store.startRun(claim, "w1");
      expect(await store.parkRun(claim, { tool: "ask", state: {} })).toBe("parked");
      const posted = await store.postMessage(run.id, "while parked");
      expect(posted.run).toMatchObject({ status: "waiting_tool", workerId: null });
      expect(await store.pendingMessages(run.id, 0)).toEqual([
        { id: posted.messageId, content: "while parked" },
      ]);
    });

    it("to a run that has ended are refused with run_already_ended, to a script with run_not_steerable, nothing written", async () => {
      const s = session();
      const run = (await store.createRun(agentRun(s))).run;
      const claim = { runId: run.id, token: "t1" };
      await store.startRun(claim, "w1");
      await store.finishRun(claim, { status: "completed", output: { answer: "done" } });
      expect(await refusalOf(store.postMessage(run.id, "too late"))).toMatchObject({
        code: "run_already_ended",
        status: 409,
      });
      const cancelled = (await store.createRun(agentRun(s))).run;
      await store.requestCancel(cancelled.id);
      expect(await refusalOf(store.postMessage(cancelled.id, "too late"))).toMatchObject({
        code: "run_already_ended",
      });
      const script = (await store.createRun(newRun(s))).run;
      expect(await refusalOf(store.postMessage(script.id, "no"))).toMatchObject({
        code: "run_not_steerable",
        status: 409,
      });
      expect(await refusalOf(store.postMessage("run_01JNOSUCHRUN0000000000000", "no"))).toMatchObject({
        code: "run_not_found",
      });
      for (const id of [run.id, cancelled.id, script.id])
        expect(await store.pendingMessages(id, 0)).toEqual([]);
    });

    it("ifBusy steer: an agent's prompt is a message to the session's executing agent run, no run made; otherwise the tail", async () => {
      const s = session();
      // Nothing executes: an ordinary run at the tail.
      const executing = (await store.createRun(agentRun(s, "first", { ifBusy: "steer" }))).run;
      expect(executing.seq).toBe(1);
      const claim = { runId: executing.id, token: "t1" };
      await store.startRun(claim, "w1");
      const steered = await store.createRun(agentRun(s, "steer me", { ifBusy: "steer" }));
      expect(steered).toMatchObject({ created: false, run: { id: executing.id, status: "running" } });
      expect(await store.pendingMessages(executing.id, 0)).toEqual([
        { id: steered.steered!.messageId, content: "steer me" },
      ]);
      // A script submission with steer waits its turn.
      const script = await store.createRun(newRun(s, { ifBusy: "steer" }));
      expect(script).toMatchObject({ created: true, steered: null, run: { seq: 2, status: "queued" } });
      // In a batch, in the order given.
      const batch = await store.createRuns(
        [agentRun(s, "b1", { ifBusy: "steer" }), agentRun(s, "b2", { ifBusy: "steer" })],
        { atomic: true },
      );
      expect(batch.map((o) => ("run" in o ? o.run.id : null))).toEqual([executing.id, executing.id]);
      expect((await store.pendingMessages(executing.id, 0)).map((m) => m.content)).toEqual([
        "steer me",
        "b1",
        "b2",
      ]);
      // Asked to stop: it takes no more, the prompt is a run of its own.
      await store.requestCancel(executing.id);
      const after = await store.createRun(agentRun(s, "later", { ifBusy: "steer" }));
      expect(after).toMatchObject({ created: true, steered: null, run: { seq: 3, status: "queued" } });
      expect(await store.pendingMessages(executing.id, 0)).toHaveLength(3);
    });
  });
}
