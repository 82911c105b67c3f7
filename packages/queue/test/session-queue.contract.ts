import type { QueueEntry, RunPriority } from "@oah/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionLock, SessionQueue } from "../src";

export interface QueueHarness {
  queue: SessionQueue;
  /** Moves the queue's clock (lock expiry) forward. */
  advance(ms: number): Promise<void>;
  dispose(): Promise<void>;
}

/** Long enough that no lock lapses by accident on a busy machine. */
export const LOCK_TTL_MS = 10_000;
/** For the tests about lapsing locks. */
export const SHORT_LOCK_TTL_MS = 400;

let seq = 0;
function entry(
  sessionId: string,
  queueSeq: number,
  priority: RunPriority = "normal",
  workspaceId = "default",
): QueueEntry {
  return {
    runId: `run-${sessionId}-${queueSeq}-${++seq}`,
    sessionId,
    workspaceId,
    queueSeq,
    priority,
    enqueuedAt: Date.now(),
  };
}

/** A lock as a dead or mistaken holder names it: a token of its own. */
const lock = (sessionId: string, token: string): SessionLock => ({
  sessionId,
  token,
  workspaceId: "default",
});

/** The behaviour every SessionQueue backend must have (SPEC §5): one suite, run against each. */
export function sessionQueueContract(
  name: string,
  create: (lockTtlMs: number) => Promise<QueueHarness>,
): void {
  describe(`SessionQueue contract: ${name}`, () => {
    let h: QueueHarness;
    let q: SessionQueue;
    beforeEach(async () => {
      h = await create(LOCK_TTL_MS);
      q = h.queue;
    });
    afterEach(() => h.dispose());

    /** A queue of short-lived locks instead of the default one, for the rest of the test. */
    async function withShortLocks(): Promise<void> {
      await h.dispose();
      h = await create(SHORT_LOCK_TTL_MS);
      q = h.queue;
    }

    it("hands out a session's runs in queueSeq order, whatever the order they were enqueued in", async () => {
      const [a1, a2, a3] = [entry("a", 1), entry("a", 2), entry("a", 3)];
      await q.enqueue([a3, a1]);
      await q.enqueue([a2]);
      const got: string[] = [];
      for (let i = 0; i < 3; i++) {
        const claim = await q.claim();
        got.push(claim!.entry.runId);
        await q.release(claim!);
      }
      expect(got).toEqual([a1.runId, a2.runId, a3.runId]);
      expect(await q.claim()).toBeNull();
    });

    it("lets one claimer hold a session at a time, and other sessions in parallel", async () => {
      await q.enqueue([entry("a", 1), entry("a", 2), entry("b", 1)]);
      const first = await q.claim();
      const second = await q.claim();
      expect(new Set([first!.sessionId, second!.sessionId])).toEqual(new Set(["a", "b"]));
      expect(await q.claim()).toBeNull(); // a's second run waits for a's lock
      const a = first!.sessionId === "a" ? first! : second!;
      expect(await q.release(lock("a", "not-the-token"))).toBe(false);
      expect(await q.claim()).toBeNull();
      expect(await q.release(a)).toBe(true);
      expect((await q.claim())?.sessionId).toBe("a");
    });

    it("claims the oldest ready session first and sends a released session to the back", async () => {
      await q.enqueue([entry("old", 1), entry("old", 2)]);
      await h.advance(5);
      await q.enqueue([entry("new", 1)]);
      const first = await q.claim();
      expect(first!.sessionId).toBe("old");
      await q.release(first!);
      // "old" still has a run, but "new" has waited longer since "old" was served.
      expect((await q.claim())!.sessionId).toBe("new");
    });

    it.each([
      ["with the readySince of its claim, takes back its place in line", true, ["a", "b", "c"]],
      ["without it, goes to the back of the line", false, ["b", "c", "a"]],
    ])("a session whose claim is put back unstarted, %s", async (_name, keepTurn, order) => {
      for (const name of ["a", "b", "c"]) {
        await q.enqueue([entry(name, 1)]);
        await h.advance(5);
      }
      const claim = await q.claim();
      expect(claim).toMatchObject({ sessionId: "a", readySince: expect.any(Number) });
      await h.advance(5);
      const readySince = keepTurn ? claim!.readySince : undefined;
      await q.release(claim!, { putBack: claim!.entry, readySince });
      const claims = [await q.claim(), await q.claim(), await q.claim()];
      expect(claims.map((c) => c?.sessionId)).toEqual(order);
      expect(claims.find((c) => c?.sessionId === "a")!.entry).toEqual(claim!.entry);
    });

    it("makes the sessions of one enqueue call ready in the order of their entries", async () => {
      const names = ["m", "c", "x", "a", "q", "b"];
      await q.enqueue(names.map((n) => entry(n, 1)));
      const claims = await Promise.all(names.map(() => q.claim()));
      expect(claims.map((c) => c?.sessionId)).toEqual(names);
    });

    it("does not starve a one-run session behind a session with a hundred runs", async () => {
      // No time passes between the two: ready order must hold within one millisecond too.
      await q.enqueue(Array.from({ length: 100 }, (_, i) => entry("busy", i + 1)));
      await q.enqueue([entry("single", 1)]);
      const order: string[] = [];
      for (let i = 0; i < 3; i++) {
        const claim = await q.claim();
        order.push(claim!.sessionId);
        await q.release(claim!);
      }
      expect(order.indexOf("single")).toBeLessThanOrEqual(1);
    });

    it("claims subagent sessions before older normal ones", async () => {
      await q.enqueue([entry("normal-1", 1), entry("normal-2", 1)]);
      await h.advance(5);
      await q.enqueue([entry("child", 1, "subagent")]);
      expect((await q.claim())!.sessionId).toBe("child");
      const p = await q.pressure();
      expect(p).toMatchObject({ readySessionCount: 2, subagentReadySessionCount: 0 });
    });

    it("keeps a put-back entry in place and the session waiting until its earlier run arrives", async () => {
      const [a1, a2] = [entry("a", 1), entry("a", 2)];
      await q.enqueue([a2]);
      const claim = await q.claim();
      expect(claim!.entry.runId).toBe(a2.runId);
      await q.release(claim!, { putBack: a2, ready: false });
      expect(await q.claim()).toBeNull();
      await q.enqueue([a1]);
      expect((await q.claim())!.entry.runId).toBe(a1.runId);
    });

    it("makes the session ready when its earlier run arrived while the put-back run held it", async () => {
      // The later run reached the queue first (two submissions, their enqueues crossing),
      // was claimed, and could not start; its earlier run was enqueued meanwhile.
      const [a1, a2] = [entry("a", 1), entry("a", 2)];
      await q.enqueue([a2]);
      const claim = await q.claim();
      expect(claim!.entry.runId).toBe(a2.runId);
      await q.enqueue([a1]);
      await q.release(claim!, { putBack: a2, ready: false });
      const next = await q.claim();
      expect(next?.entry.runId).toBe(a1.runId);
      await q.release(next!);
      expect((await q.claim())!.entry.runId).toBe(a2.runId);
    });

    it("makes ready a session that holds runs with no lock and no place in the ready set", async () => {
      const [a2, b1] = [entry("a", 2), entry("b", 1)];
      await q.enqueue([a2, b1]);
      const a = await q.claim();
      expect(a!.sessionId).toBe("a");
      // a is locked, b is ready, c holds nothing: none is stranded.
      expect(await q.readyStranded(["a", "b", "c"])).toEqual([]);
      await q.release(a!, { putBack: a2, ready: false });
      const b = await q.claim();
      expect(b!.sessionId).toBe("b");
      expect(await q.claim()).toBeNull();
      // a waits, out of the ready set, for an earlier run that (here) never comes.
      expect(await q.readyStranded(["a", "b"])).toEqual(["a"]);
      expect((await q.claim())!.entry.runId).toBe(a2.runId);
    });

    it("a release with a token that holds nothing still makes a waiting session ready", async () => {
      const a2 = entry("a", 2);
      await q.enqueue([a2]);
      const claim = await q.claim();
      await q.release(claim!, { putBack: a2, ready: false });
      expect(await q.claim()).toBeNull();
      expect(await q.release(lock("a", "a-dead-workers-token"))).toBe(false);
      expect((await q.claim())!.entry.runId).toBe(a2.runId);
    });

    it("removes a cancelled run; an emptied session is no longer ready", async () => {
      const [a1, a2, b1] = [entry("a", 1), entry("a", 2), entry("b", 1)];
      await q.enqueue([a1, a2, b1]);
      expect(await q.remove("a", a1.runId)).toBe(true);
      expect(await q.remove("a", a1.runId)).toBe(false);
      expect(await q.remove("b", b1.runId)).toBe(true);
      const claim = await q.claim();
      expect(claim!.entry.runId).toBe(a2.runId);
      expect(await q.claim()).toBeNull();
    });

    it("renews a lock only with its token, and frees it when it expires", async () => {
      await withShortLocks();
      await q.enqueue([entry("a", 1), entry("a", 2)]);
      const claim = await q.claim();
      expect(await q.renewLocks([lock("a", claim!.token)])).toEqual([]);
      expect(await q.renewLocks([lock("a", "other")])).toEqual(["a"]);
      await h.advance(SHORT_LOCK_TTL_MS + 50);
      // Expired: a release with any token makes the session claimable by someone else.
      await q.release(lock("a", "nobody"));
      const taken = await q.claim();
      expect(taken!.sessionId).toBe("a");
      expect(taken!.token).not.toBe(claim!.token);
      // The old holder can neither renew nor release what is now another's.
      expect(await q.renewLocks([lock("a", claim!.token)])).toEqual(["a"]);
      expect(await q.release(claim!)).toBe(false);
      expect(await q.renewLocks([lock("a", taken!.token)])).toEqual([]);
    });

    it("does not tell a holder whose lock lapsed, while nobody took the session, that it lost it", async () => {
      await withShortLocks();
      await q.enqueue([entry("a", 1)]);
      const claim = await q.claim();
      await h.advance(SHORT_LOCK_TTL_MS + 50);
      expect(await q.renewLocks([lock("a", claim!.token)])).toEqual([]);
      expect(await q.release(claim!)).toBe(false);
    });

    it("wakes a waiting worker when a run becomes claimable, and on abort", async () => {
      const controller = new AbortController();
      let woke = false;
      const waiting = q.waitForWork(controller.signal).then(() => {
        woke = true;
      });
      await new Promise((r) => setTimeout(r, 20));
      expect(woke).toBe(false);
      await q.enqueue([entry("a", 1)]);
      await waiting;
      expect(woke).toBe(true);

      const idle = new AbortController();
      const aborted = q.waitForWork(idle.signal);
      await q.claim();
      idle.abort();
      await aborted;
      controller.abort();
    });

    it("lists its entries and counts them", async () => {
      const all = [entry("a", 1), entry("a", 2), entry("b", 1)];
      await q.enqueue(all);
      const listed: QueueEntry[] = [];
      for await (const batch of q.entries()) listed.push(...batch);
      expect(listed.map((e) => e.runId).sort()).toEqual(all.map((e) => e.runId).sort());
      expect(await q.size()).toBe(3);
      await q.claim();
      expect(await q.size()).toBe(2);
    });

    it("counts as lost a run it does not hold whose session is not locked, not one in a claim's hands", async () => {
      const [a1, a2, b1] = [entry("a", 1), entry("a", 2), entry("b", 1)];
      await q.enqueue([a1, a2]);
      const claimed = await q.claim();
      expect(claimed!.entry).toEqual(a1);
      // a1 is claimed (a is locked), a2 is held, b1 was never enqueued (or was lost).
      expect(await q.lost([a1, a2, b1])).toEqual([b1.runId]);
      // Released without being put back, as by a holder that died after its lock expired.
      await q.release(claimed!);
      expect(await q.lost([a1, a2, b1])).toEqual([a1.runId, b1.runId]);
    });

    it("marks itself live once", async () => {
      expect(await q.markLive()).toBe(true);
      expect(await q.markLive()).toBe(false);
    });

    it("reports pressure: ready sessions, the subagent lane, the oldest wait", async () => {
      await q.enqueue([entry("a", 1), entry("a", 2), entry("b", 1), entry("c", 1, "subagent")]);
      await h.advance(200);
      const p = await q.pressure();
      expect(p).toMatchObject({
        readySessionCount: 3,
        uniqueReadySessionCount: 3,
        subagentReadySessionCount: 1,
        lockedReadySessionCount: 0,
        staleReadySessionCount: 0,
      });
      expect(p.oldestSchedulableReadyAgeMs).toBeGreaterThanOrEqual(200);
    });
  });
}
