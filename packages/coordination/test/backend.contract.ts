import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Backend, EventNote, LiveEvent, RunSignal } from "../src";

export interface BackendHarness {
  /** The backend under test, of a deployment of its own. */
  backend: Backend;
  /** Resolves once what is published reaches the listeners subscribed so far. */
  listening(): Promise<void>;
  dispose(): Promise<void>;
}

/** Long enough for a published message to come back through a loaded Redis. */
const HEARD_WITHIN_MS = 5_000;

/** Resolves once `listened` has heard `count` messages. */
async function heard<T>(listened: T[], count: number): Promise<T[]> {
  const deadline = Date.now() + HEARD_WITHIN_MS;
  while (listened.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return listened;
}

/**
 * What every backend does alike with the parts every backend has (the queue has its own
 * suite, sessionQueueContract): the run signals and events it carries, the leases and orders it
 * keeps, and its close.
 */
export function backendContract(name: string, open: () => Promise<BackendHarness>): void {
  describe(`backend contract: ${name}`, () => {
    let harness: BackendHarness;
    let backend: Backend;
    beforeEach(async () => {
      harness = await open();
      backend = harness.backend;
    });
    afterEach(() => harness.dispose());

    it("carries a run signal to its listeners, and to none once they unsubscribe", async () => {
      const got: RunSignal[] = [];
      const unsubscribe = backend.signals.subscribe((signal) => got.push(signal));
      await harness.listening();
      await backend.signals.publish({ kind: "cancel", runId: "run_1" });
      await backend.signals.publish({ kind: "tool_result", runId: "run_2" });
      expect(await heard(got, 2)).toEqual([
        { kind: "cancel", runId: "run_1" },
        { kind: "tool_result", runId: "run_2" },
      ]);
      unsubscribe();
      const after: RunSignal[] = [];
      backend.signals.subscribe((signal) => after.push(signal));
      await backend.signals.publish({ kind: "cancel", runId: "run_3" });
      // Heard by the listener still subscribed, so it would have reached the other by now.
      expect(await heard(after, 1)).toEqual([{ kind: "cancel", runId: "run_3" }]);
      expect(got).toHaveLength(2);
    });

    it("carries the sessions written and a live event, in the order given", async () => {
      const got: EventNote[] = [];
      backend.events.subscribe((note) => got.push(note));
      await harness.listening();
      const delta: LiveEvent = {
        sessionId: "s2",
        runId: "run_1",
        type: "model.delta",
        at: new Date().toISOString(),
        data: { text: "hi" },
      };
      backend.events.publish({ kind: "written", sessionIds: ["s1"] });
      backend.events.publish({ kind: "live", event: delta });
      expect(await heard(got, 2)).toEqual([
        { kind: "written", sessionIds: ["s1"] },
        { kind: "live", event: delta },
      ]);
    });

    it("keeps a host's lease, the runs it executes, until it lapses or is removed", async () => {
      await backend.leases.renew("host-a", ["run_1", "run_2"], 60_000);
      await backend.leases.renew("host-b", ["run_3"], 150);
      expect(await backend.leases.runsOf(["host-a", "host-b", "host-c"])).toEqual(
        new Map([
          ["host-a", new Set(["run_1", "run_2"])],
          ["host-b", new Set(["run_3"])],
        ]),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect([...(await backend.leases.runsOf(["host-a", "host-b"])).keys()]).toEqual(["host-a"]);
      await backend.leases.remove("host-a");
      expect(await backend.leases.runsOf(["host-a"])).toEqual(new Map());
    });

    it("keeps the order given to each host until it is withdrawn", async () => {
      await backend.orders.give("host-a", "cordon");
      await backend.orders.give("host-b", "drain");
      expect(await backend.orders.orderOf("host-a")).toBe("cordon");
      expect(await backend.orders.orderOf("host-b")).toBe("drain");
      expect(await backend.orders.orderOf("host-c")).toBeNull();
      await backend.orders.give("host-a", null);
      expect(await backend.orders.orderOf("host-a")).toBeNull();
      expect(await backend.orders.orderOf("host-b")).toBe("drain");
    });

    it("closes its queue with it: a worker waiting for work is let go", async () => {
      let waited = false;
      const waiting = backend.queue.waitForWork(new AbortController().signal).then(() => {
        waited = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(waited).toBe(false);
      await backend.close();
      await waiting;
      expect(waited).toBe(true);
    });
  });
}
