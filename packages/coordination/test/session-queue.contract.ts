import {
  DEFAULT_FAIR_SHARE,
  type FairShare,
  type FairShareEvent,
  fairShareOrder,
  type QueueEntry,
  type RunPriority,
} from "@oah/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionClaim, SessionLock, SessionQueue } from "../src";

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

const ready = (workspaceId: string, sessions: number): FairShareEvent => ({
  kind: "ready",
  workspaceId,
  sessions,
});
const claims = (n: number): FairShareEvent[] => Array.from({ length: n }, () => ({ kind: "claim" }));
const release = (workspaceId: string, again = false): FairShareEvent => ({
  kind: "release",
  workspaceId,
  again,
});

// name, fair share, what happens (@oah/core's reference events: ready sessions of one run,
// claims, releases), the workspace each claim goes to ("-": none), in @oah/core's
// reference (fairShareOrder) and in every queue alike.
const FAIR_ORDER: [string, FairShare, FairShareEvent[], string][] = [
  [
    "equal weights: A with 6 sessions and B with 2 alternate while both wait",
    DEFAULT_FAIR_SHARE,
    [ready("A", 6), ready("B", 2), ...claims(9)],
    "ABABAAAA-",
  ],
  [
    "weights 3:1 give A 3 claims to B's 1",
    { weights: { A: 3 }, caps: {} },
    [ready("A", 9), ready("B", 3), ...claims(12)],
    "ABAAABAAABAA",
  ],
  [
    "a workspace joining late starts at virtual time, not at 0",
    DEFAULT_FAIR_SHARE,
    [ready("A", 10), ...claims(4), ready("B", 10), ...claims(6)],
    "AAAABABABA",
  ],
  [
    "a workspace coming back cannot bank the turns it did not want",
    DEFAULT_FAIR_SHARE,
    [ready("A", 10), ready("B", 1), ...claims(2), release("B"), ...claims(4), ready("B", 3), ...claims(4)],
    "ABAAAABABA",
  ],
  [
    "a cap of 2 leaves A's third session unclaimed until a release, and lets B's through",
    { weights: {}, caps: { A: 2 } },
    [ready("A", 3), ready("B", 1), ...claims(4), release("A"), ...claims(1)],
    "ABA-A",
  ],
  [
    "a capped workspace's turns go to the others, and it comes back at virtual time",
    { weights: {}, caps: { A: 1 } },
    [ready("A", 3), ready("B", 5), ...claims(4), release("A", true), ...claims(4)],
    "ABBBABB-",
  ],
  [
    "weights and a cap together",
    { weights: { A: 2, C: 0.5 }, caps: { B: 1 } },
    [ready("A", 8), ready("B", 3), ready("C", 4), ...claims(6), release("B", true), ...claims(6)],
    "ABCAAABACAAA",
  ],
  [
    "when everything is idle, virtual time starts over",
    DEFAULT_FAIR_SHARE,
    [ready("A", 1), ...claims(1), release("A"), ready("A", 1), ready("B", 1), ...claims(2)],
    "AAB",
  ],
];

/** Plays reference events on a queue; returns the workspace of each claim ("-": none). */
async function playFairShare(q: SessionQueue, events: readonly FairShareEvent[]): Promise<string> {
  const held = new Map<string, SessionClaim[]>();
  let sessions = 0;
  let order = "";
  for (const event of events) {
    if (event.kind === "ready") {
      const ws = event.workspaceId;
      await q.enqueue(
        Array.from({ length: event.sessions }, () => entry(`${ws}-${++sessions}`, 1, "normal", ws)),
      );
    } else if (event.kind === "claim") {
      const claim = await q.claim();
      order += claim?.workspaceId ?? "-";
      if (claim) held.set(claim.workspaceId, [...(held.get(claim.workspaceId) ?? []), claim]);
    } else {
      const claim = held.get(event.workspaceId)!.shift()!;
      // A session ready again on its release: it has a run left.
      if (event.again) await q.enqueue([entry(claim.sessionId, 2, "normal", event.workspaceId)]);
      expect(await q.release(claim)).toBe(true);
    }
  }
  return order;
}

/** The behaviour every SessionQueue backend must have (docs/spec.md §5): one suite, run against each. */
export function sessionQueueContract(
  name: string,
  create: (lockTtlMs: number, fairShare?: FairShare) => Promise<QueueHarness>,
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

    it("makes ready at its release a session whose blocker ended while a claim held it, even if told not to", async () => {
      // a1 is parked (unfinished, out of the queue); a2 was claimed and will be found blocked behind it.
      const a2 = entry("a", 2);
      await q.enqueue([a2]);
      const claim = await q.claim();
      // a1 ends (cancelled) meanwhile: a is locked, so it is not made ready now...
      expect(await q.readyStranded(["a"], { blockerEnded: true })).toEqual([]);
      // ...but by the release of the claim that found a2 blocked.
      await q.release(claim!, { putBack: a2, ready: false });
      expect((await q.claim())?.entry.runId).toBe(a2.runId);
    });

    it("without its blocker ending, a session told not ready at release waits, even if looked at while locked", async () => {
      const a2 = entry("a", 2);
      await q.enqueue([a2]);
      const claim = await q.claim();
      expect(await q.readyStranded(["a"])).toEqual([]);
      await q.release(claim!, { putBack: a2, ready: false });
      expect(await q.claim()).toBeNull();
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

    describe("inspection and repairs (docs/spec.md §7, jams)", () => {
      it("shows a session's lock, place in line and runs", async () => {
        const [a1, a2, b1] = [entry("a", 1), entry("a", 2), entry("b", 1, "subagent")];
        await q.enqueue([a1, a2, b1]);
        const before = Date.now();
        const claim = await q.claim();
        expect(claim!.sessionId).toBe("b");
        const [a, b, none] = await q.inspect(["a", "b", "none"]);
        expect(a).toEqual({
          sessionId: "a",
          lock: null,
          ready: { lane: "normal", since: expect.any(Number), workspaceId: "default" },
          entries: [a1, a2],
        });
        expect(a!.ready!.since).toBeLessThanOrEqual(Date.now() + 1);
        // A locked session does not wait in line.
        expect(b).toEqual({
          sessionId: "b",
          lock: { token: claim!.token, ttlMs: expect.any(Number), silentMs: expect.any(Number) },
          ready: null,
          entries: [],
        });
        expect(b!.lock!.ttlMs).toBeGreaterThan(LOCK_TTL_MS - (Date.now() - before) - 50);
        expect(b!.lock!.silentMs).toBeLessThan(Date.now() - before + 50);
        expect(none).toEqual({ sessionId: "none", lock: null, ready: null, entries: [] });
        expect((await q.inspect(["a"], 1))[0]!.entries).toEqual([a1]);
      });

      it("surveys the locked sessions, and finds no empty ready entry in a clean queue", async () => {
        await q.enqueue([entry("a", 1), entry("b", 1), entry("c", 1)]);
        const claims = [await q.claim(), await q.claim()];
        const survey = await q.survey(10);
        expect(survey.locked.sort()).toEqual(claims.map((c) => c!.sessionId).sort());
        expect(survey.emptyReady).toEqual([]);
        expect((await q.survey(1)).locked).toHaveLength(1);
        // Ready sessions with runs, and locked ones, are not dropped.
        expect(await q.dropEmptyReady(["a", "b", "c", "none"])).toEqual([]);
        expect(await q.claim()).not.toBeNull();
      });

      it("breaks a lock only when its holder has not renewed it for the time asked", async () => {
        await withShortLocks();
        await q.enqueue([entry("a", 1), entry("a", 2)]);
        const claim = await q.claim();
        await h.advance(SHORT_LOCK_TTL_MS / 2);
        expect(await q.renewLocks([claim!])).toEqual([]);
        // Renewed just now: refused, the lock untouched.
        expect(await q.release(claim!, { ifSilentForMs: SHORT_LOCK_TTL_MS / 4 })).toBe(false);
        expect((await q.inspect(["a"]))[0]!.lock?.token).toBe(claim!.token);
        expect(await q.claim()).toBeNull();
        await h.advance(SHORT_LOCK_TTL_MS / 2);
        expect(await q.release(claim!, { ifSilentForMs: SHORT_LOCK_TTL_MS / 4 })).toBe(true);
        expect((await q.inspect(["a"]))[0]!.lock).toBeNull();
        expect((await q.claim())?.sessionId).toBe("a");
      });
    });

    it("marks itself live once", async () => {
      expect(await q.markLive()).toBe(true);
      expect(await q.markLive()).toBe(false);
    });

    describe("fair shares between workspaces", () => {
      it.each(FAIR_ORDER)("%s", async (_name, fairShare, events, expected) => {
        await h.dispose();
        h = await create(LOCK_TTL_MS, fairShare);
        expect(
          fairShareOrder(fairShare, events)
            .map((w) => w ?? "-")
            .join(""),
        ).toBe(expected);
        expect(await playFairShare(h.queue, events)).toBe(expected);
      });

      it("takes a workspace's subagent sessions first, in that workspace's turn only", async () => {
        await q.enqueue([entry("a-normal", 1, "normal", "A"), entry("b-normal", 1, "normal", "B")]);
        await h.advance(5);
        await q.enqueue([entry("a-child", 1, "subagent", "A")]);
        const order: string[] = [];
        for (let i = 0; i < 3; i++) order.push((await q.claim())!.sessionId);
        expect(order).toEqual(["a-child", "b-normal", "a-normal"]);
      });

      it("takes a workspace's sessions oldest first, a released one to the back of its line", async () => {
        await q.enqueue([entry("a1", 1, "normal", "A"), entry("a1", 2, "normal", "A")]);
        await h.advance(5);
        await q.enqueue([entry("a2", 1, "normal", "A"), entry("b1", 1, "normal", "B")]);
        const first = await q.claim();
        expect(first!.sessionId).toBe("a1");
        await q.release(first!);
        const order: string[] = [];
        for (let i = 0; i < 3; i++) order.push((await q.claim())!.sessionId);
        expect(order).toEqual(["b1", "a2", "a1"]);
      });

      it("counts ready sessions by workspace, those waiting for a cap too, in the pool's figures as well", async () => {
        await h.dispose();
        h = await create(LOCK_TTL_MS, { weights: {}, caps: { A: 1 } });
        q = h.queue;
        await q.enqueue([
          entry("a1", 1, "normal", "A"),
          entry("a2", 1, "normal", "A"),
          entry("a3", 1, "normal", "A"),
        ]);
        await q.enqueue([entry("b1", 1, "normal", "B")]);
        expect((await q.claim())!.workspaceId).toBe("A");
        expect((await q.claim())!.workspaceId).toBe("B");
        expect(await q.claim()).toBeNull();
        expect(await q.readyByWorkspace(10)).toEqual([{ workspaceId: "A", readySessions: 2 }]);
        expect(await q.pressure()).toMatchObject({ readySessionCount: 2 });
        await q.enqueue([entry("c1", 1, "normal", "C")]);
        expect(await q.readyByWorkspace(10)).toEqual([
          { workspaceId: "A", readySessions: 2 },
          { workspaceId: "C", readySessions: 1 },
        ]);
        expect(await q.readyByWorkspace(1)).toHaveLength(1);
      });

      it("wakes a waiting worker when a capped workspace can take one more session", async () => {
        await h.dispose();
        h = await create(LOCK_TTL_MS, { weights: {}, caps: { A: 1 } });
        q = h.queue;
        await q.enqueue([entry("a1", 1, "normal", "A"), entry("a2", 1, "normal", "A")]);
        const first = await q.claim();
        expect(await q.claim()).toBeNull();
        // The enqueue's announcements, heard by nobody, make one wait return at once.
        await new Promise((r) => setTimeout(r, 50));
        await q.waitForWork(new AbortController().signal);
        const idle = new AbortController();
        const waiting = q.waitForWork(idle.signal).then(() => "woken");
        const asleep = (ms: number) => new Promise((r) => setTimeout(() => r("asleep"), ms));
        expect(await Promise.race([waiting, asleep(50)])).toBe("asleep");
        await q.release(first!);
        expect(await Promise.race([waiting, asleep(2_000)])).toBe("woken");
        expect((await q.claim())?.sessionId).toBe("a2");
        idle.abort();
      });
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
