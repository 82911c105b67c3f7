// (f) Where the time of a run goes: the two parts of oah's Redis + PostgreSQL
// path, each alone, in this process, on the shape and slot counts of (a).
// - store alone: each slot starts the next run of a ready session and waits for
//   the commit, then ends it in the background (a group commit of the starts, the
//   ends and their events, as a worker does); the session is ready again once its
//   end is committed. No queue, no executor, no HTTP.
// - queue alone: each slot claims a session in Redis and releases it (the claim
//   and release Lua scripts, the wake announcements); no store.
// - the floor: the store alone's shape on a bare table (a primary key and a status):
//   each start and each end a row update, group-committed as the store's writes are
//   (one statement and one commit per batch). What PostgreSQL does at the least for
//   that shape on this machine: the store alone's distance to it is oah's own cost.
// A whole system cannot be faster than its slowest part at the same slot count:
// these are ceilings for oah Redis+PG in (a), measured on the same two cores.
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { join } from "node:path";
import type { QueueEntry } from "@oah/core";
import { RedisSessionQueue } from "@oah/redis";
import { GroupCommit, openRunStore } from "@oah/store";
import { createTempDir, newRun, REPO_ROOT } from "@oah/testing";
import { Redis } from "ioredis";
import pg from "pg";
import { log } from "../log";
import { PEER_LABELS } from "../peers";
import { inParallel, SUBMIT_CONCURRENCY } from "../peers/oah-client";
import type { Services } from "../services";
import { round, type Summary, summarize } from "../stats";
import type { AbsoluteRow, ComparedRow } from "../table";
import { otherSystems, type Sections, type Workload } from "../workload";
import { throughputMedian } from "./throughput";

export interface PartsResult {
  storeAloneRunsPerSecond: number;
  queueAloneRunsPerSecond: number;
  floorRunsPerSecond: number;
}

interface Session {
  id: string;
  runIds: string[];
  next: number;
}

/** Hands sessions to slots in the order they became ready; `take` waits when none is. */
class ReadySessions {
  private readonly ready: Session[] = [];
  private readonly waiting: ((s: Session | null) => void)[] = [];
  private left: number;

  constructor(sessions: Session[], total: number) {
    this.ready.push(...sessions);
    this.left = total;
  }

  take(): Promise<Session | null> {
    const s = this.ready.shift();
    if (s) return Promise.resolve(s);
    if (this.left === 0) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** One run of `s` is done: `s` is ready again if it has runs left. */
  done(s: Session): void {
    this.left--;
    s.next++;
    if (s.next < s.runIds.length) {
      const w = this.waiting.shift();
      if (w) w(s);
      else this.ready.push(s);
    }
    if (this.left === 0) for (const w of this.waiting.splice(0)) w(null);
  }
}

function sessionsOf(sessions: number, runsPerSession: number): Session[] {
  return Array.from({ length: sessions }, (_, s) => ({
    id: `parts-${s}`,
    runIds: Array.from({ length: runsPerSession }, () => `run_${randomUUID().replaceAll("-", "")}`),
    next: 0,
  }));
}

/** The runs in the order of (a)'s submission: round-robin over the sessions. */
function submissionOrder(all: Session[]): { session: Session; runId: string }[] {
  return all[0]!.runIds.flatMap((_, r) => all.map((session) => ({ session, runId: session.runIds[r]! })));
}

/**
 * Runs every run of `all` through `slots` slots as a worker does: a slot takes a ready session,
 * waits for its run's start, and goes on while the end is written; the session is ready again
 * once its end is. Runs per second.
 */
async function drain(
  all: Session[],
  total: number,
  slots: number,
  writes: { start(runId: string, slot: number): Promise<void>; end(runId: string): Promise<void> },
): Promise<number> {
  const ready = new ReadySessions(all, total);
  const ends: Promise<unknown>[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: slots }, async (_, w) => {
      for (let s = await ready.take(); s; s = await ready.take()) {
        const session = s;
        const runId = session.runIds[session.next]!;
        await writes.start(runId, w);
        ends.push(writes.end(runId).then(() => ready.done(session)));
      }
    }),
  );
  await Promise.all(ends);
  return total / ((performance.now() - t0) / 1000);
}

/** The floor: the same shape on a table of a primary key and a status, group-committed. */
async function floor(services: Services, sessions: number, runsPerSession: number, slots: number) {
  const db = await services.createDatabase("floor");
  const pool = new pg.Pool({ connectionString: db.url, max: 10 });
  try {
    const all = sessionsOf(sessions, runsPerSession);
    await pool.query("CREATE TABLE floor_runs (id text PRIMARY KEY, status text NOT NULL)");
    await pool.query("INSERT INTO floor_runs SELECT unnest($1::text[]), 'queued'", [
      all.flatMap((s) => s.runIds),
    ]);
    const writer = (status: string) =>
      new GroupCommit(async (ids: string[]) => {
        await pool.query("UPDATE floor_runs SET status = $2 WHERE id = ANY($1::text[])", [ids, status]);
        return ids.map(() => undefined);
      });
    const starts = writer("running");
    const ends = writer("completed");
    return await drain(all, sessions * runsPerSession, slots, {
      start: (runId) => starts.submit(runId),
      end: (runId) => ends.submit(runId),
    });
  } finally {
    await pool.end();
    await db.drop();
  }
}

async function storeAlone(services: Services, sessions: number, runsPerSession: number, slots: number) {
  const db = await services.createDatabase("parts");
  const dir = createTempDir("oah-bench-parts-");
  const store = await openRunStore({
    databaseUrl: db.url,
    dataDir: dir.path,
    migrationsDir: join(REPO_ROOT, "drizzle"),
  });
  try {
    const all = sessionsOf(sessions, runsPerSession);
    const order = submissionOrder(all);
    await inParallel(order.length, SUBMIT_CONCURRENCY, async (i) => {
      const { session, runId } = order[i]!;
      await store.createRun(newRun(session.id, { id: runId, workspaceId: session.id }));
    });
    let tokens = 0;
    const claims = new Map<string, { runId: string; token: string }>();
    return await drain(all, order.length, slots, {
      start: async (runId, w) => {
        const claim = { runId, token: `t${++tokens}` };
        claims.set(runId, claim);
        const start = await store.startRun(claim, `parts-w${w}`);
        if (start.kind !== "started") throw new Error(`store alone: a start was ${start.kind}`);
      },
      end: async (runId) => {
        const ended = await store.finishRun(claims.get(runId)!, { status: "completed", output: null });
        if (!ended) throw new Error("store alone: an end was refused");
      },
    });
  } finally {
    await store.close();
    dir.remove();
    await db.drop();
  }
}

async function queueAlone(services: Services, sessions: number, runsPerSession: number, slots: number) {
  const prefix = await services.createRedisPrefix("parts");
  const redis = new Redis(services.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: null });
  const queue = new RedisSessionQueue({ redis, prefix: prefix.prefix, lockTtlMs: 30_000 });
  try {
    await queue.whenSubscribed();
    const entries: QueueEntry[] = submissionOrder(sessionsOf(sessions, runsPerSession)).map(
      ({ session, runId }, i) => ({
        runId,
        sessionId: session.id,
        workspaceId: "default",
        queueSeq: i + 1,
        priority: "normal",
        enqueuedAt: Date.now(),
      }),
    );
    for (let i = 0; i < entries.length; i += 500) await queue.enqueue(entries.slice(i, i + 500));
    let done = 0;
    const stop = new AbortController();
    setMaxListeners(slots + 1, stop.signal); // every idle slot waits on it
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: slots }, async () => {
        while (done < entries.length) {
          const claim = await queue.claim();
          if (!claim) {
            await queue.waitForWork(stop.signal);
            continue;
          }
          await queue.release(claim);
          if (++done === entries.length) stop.abort();
        }
      }),
    );
    return entries.length / ((performance.now() - t0) / 1000);
  } finally {
    await queue.close();
    redis.disconnect();
    await prefix.clear();
  }
}

export async function partsOnce(
  services: Services,
  sessions: number,
  runsPerSession: number,
  slots: number,
): Promise<PartsResult> {
  const result = {
    storeAloneRunsPerSecond: round(await storeAlone(services, sessions, runsPerSession, slots)),
    queueAloneRunsPerSecond: round(await queueAlone(services, sessions, runsPerSession, slots)),
    floorRunsPerSecond: round(await floor(services, sessions, runsPerSession, slots)),
  };
  log(
    `  parts ${slots} slots: store alone ${result.storeAloneRunsPerSecond} runs/s, ` +
      `queue alone ${result.queueAloneRunsPerSecond} runs/s, floor ${result.floorRunsPerSecond} runs/s`,
  );
  return result;
}

/** Each slot count's rounds, in the order of the repetitions. */
type PartsRaw = Map<number, PartsResult[]>;

export const parts: Workload<PartsRaw> = {
  name: "parts",
  alias: "f",
  measures: "the store alone, the queue alone and the floor of oah Redis+PG, on the shape of throughput",
  systems: { own: "oah Redis+PG's store and queue, in the bench process" },
  writes: {
    parts: ["unit", "workload", "bySlots"],
    // Beside the whole's figures at the headline slot count, when throughput ran before.
    throughput: ["storeAlone", "floor"],
  },
  async run({ plan, services }) {
    const { sessions, runsPerSession } = plan.throughput;
    const raw: PartsRaw = new Map();
    for (let rep = 1; rep <= plan.reps; rep++)
      for (const slots of plan.throughput.slots) {
        log(`(f) the store alone and the queue alone, ${slots} slots, repetition ${rep}/${plan.reps}`);
        const list = raw.get(slots) ?? [];
        list.push(await partsOnce(services, sessions, runsPerSession, slots));
        raw.set(slots, list);
      }
    return raw;
  },
  report(raw, plan, earlier) {
    const sections: Sections = {};
    const compared: ComparedRow[] = [];
    const absolute: AbsoluteRow[] = [];
    const bySlots: Record<string, Record<keyof PartsResult, Summary>> = {};
    for (const [slots, rs] of raw) {
      const store = summarize(rs.map((r) => r.storeAloneRunsPerSecond));
      const queue = summarize(rs.map((r) => r.queueAloneRunsPerSecond));
      const floor = summarize(rs.map((r) => r.floorRunsPerSecond));
      bySlots[slots] = {
        storeAloneRunsPerSecond: store,
        queueAloneRunsPerSecond: queue,
        floorRunsPerSecond: floor,
      };
      absolute.push(
        { figure: `store alone (PostgreSQL: start, end, events), ${slots} slots (runs/s)`, value: store },
        { figure: `queue alone (Redis: claim, release), ${slots} slots (runs/s)`, value: queue },
        { figure: `the floor (a bare table, the same batch shape), ${slots} slots (runs/s)`, value: floor },
        {
          figure: `store alone / the floor, ${slots} slots`,
          value: String(Math.round((store.median / floor.median) * 100) / 100),
        },
      );
      const whole = throughputMedian(earlier, slots, "oahRedisPg");
      if (whole)
        absolute.push({
          figure: `oah Redis+PG / the store alone, ${slots} slots`,
          value: String(Math.round((whole.median / store.median) * 100) / 100),
        });
      if (earlier.throughput && String(slots) === String(plan.throughput.slots[0]))
        sections.throughput = { storeAlone: store.median, floor: floor.median };
      // The store alone is a ceiling of oah Redis+PG's throughput: set it beside the peers'.
      for (const peer of otherSystems(plan)) {
        const theirs = throughputMedian(earlier, slots, peer);
        if (theirs)
          compared.push({
            figure: `throughput, ${slots} slots (runs/s): the store alone, the ceiling of oah Redis+PG, vs ${PEER_LABELS[peer]}`,
            oah: store,
            peer: theirs,
            better: "higher",
          });
      }
    }
    sections.parts = {
      unit: "runs/s of each part of oah Redis+PG alone, in the bench process, on the shape of (a)",
      workload: { sessions: plan.throughput.sessions, runsPerSession: plan.throughput.runsPerSession },
      bySlots,
    };
    return { sections, compared, absolute };
  },
};
