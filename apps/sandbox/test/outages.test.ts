// @module-tag system

import type { Run } from "@oah/contract";
import {
  expectAllCompletedInOrder,
  type PrivatePostgres,
  type PrivateRedis,
  type SplitDeployment,
  startPrivatePostgres,
  startPrivateRedis,
  startSplitDeployment,
  waitFor,
  waitForQuiet,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf, waitForCompleted } from "./support";

const FAST = {
  OAH_SESSION_LOCK_TTL_MS: "3000",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
  OAH_RECOVERY_SCAN_INTERVAL_MS: "300",
};

/** Runs submitted before any sandbox exists, stale after a second: reconcile's cases. */
const RUNS_QUEUED_BEFORE_A_SANDBOX = {
  sandboxes: 0,
  env: { ...FAST, OAH_STALE_RUN_AFTER_MS: "1000" },
  sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2" },
};
const SHORT_RUN = [{ type: "sleep" as const, ms: 10 }];

describe("outages of Redis and PostgreSQL", () => {
  let d: SplitDeployment | undefined;
  let redis: PrivateRedis | undefined;
  let postgres: PrivatePostgres | undefined;
  afterEach(async () => {
    await d?.dispose();
    await redis?.stop();
    await postgres?.stop();
    d = redis = postgres = undefined;
  });

  it("loses nothing when Redis is flushed while 100 runs are queued across 10 sessions", async () => {
    redis = await startPrivateRedis();
    d = await startSplitDeployment({
      sandboxes: 1,
      redisUrl: redis.url,
      env: { ...FAST, OAH_STALE_RUN_AFTER_MS: "2000" },
      sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2" },
    });
    for (let i = 0; i < 100; i++) {
      const res = await d.client.post(`/api/v1/sessions/flush-${i % 10}/runs`, {
        input: { steps: [{ type: "sleep", ms: 40 }] },
      });
      expect(res.status).toBe(202);
    }
    await waitFor("some runs to end", async () => {
      const { rows } = await d!.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE status = 'completed'",
      );
      return rows[0]!.n >= 20;
    });
    expect(await redis.client.flushall()).toBe("OK");
    await waitForQuiet(d, 60_000);
    const rows = await expectAllCompletedInOrder(d, 100);
    expect(rows.filter((r) => r.attempt !== 1)).toEqual([]);
  }, 90_000);

  it("makes a session claimable again when its runs are queued but its ready entry was lost", async () => {
    d = await startSplitDeployment(RUNS_QUEUED_BEFORE_A_SANDBOX);
    for (let i = 0; i < 5; i++)
      await clientOf(d).submit(i < 3 ? "stranded" : "fine", { input: { steps: SHORT_RUN } });
    // A wake-up lost to a bug: the session's runs stay queued in Redis, but nothing would
    // ever claim them. The reconcile of the queue with the store must notice.
    expect(await d.redis.client.zrem(`{${d.redis.prefix}}:ready:normal`, "stranded")).toBe(1);
    await d.addSandbox();
    await waitForQuiet(d, 30_000);
    await expectAllCompletedInOrder(d, 5);
  }, 60_000);

  it("enqueues again a queued run whose queue entry was lost, but not one a claim holds, until its lock expires", async () => {
    d = await startSplitDeployment(RUNS_QUEUED_BEFORE_A_SANDBOX);
    const run = async (sessionId: string) =>
      (await clientOf(d!).submit(sessionId, { input: { steps: SHORT_RUN } })).run.id;
    const [lostRun] = [await run("lost-entry"), await run("lost-entry")];
    const heldRun = await run("held");
    const base = `{${d.redis.prefix}}:`;
    const redis = d.redis.client;
    // The queue's state is live (as hosts before this one left it): no refill from the store.
    await redis.set(`${base}marker`, String(Date.now()));
    // The first run of "lost-entry" vanishes from Redis: nothing would ever run it (or the next).
    await redis.multi().hdel(`${base}entries`, lostRun!).zrem(`${base}queue:lost-entry`, lostRun!).exec();
    // "held" is in a claim's hands: popped and locked, as by a host about to start it (or dead).
    const lockedUntil = Date.now() + 6_000;
    await redis
      .multi()
      .hdel(`${base}entries`, heldRun)
      .zrem(`${base}queue:held`, heldRun)
      .set(`${base}lock:held`, "another-host", "PX", 6_000)
      .exec();
    await d.addSandbox();

    await waitForCompleted(d, 2, "lost-entry");
    // Reconciles have run since the held run became stale: it is still the claim's, not enqueued twice.
    expect(await redis.hexists(`${base}entries`, heldRun)).toBe(0);
    expect(await redis.pttl(`${base}lock:held`)).toBeGreaterThan(0);

    // Once the lock expires the holder is taken for dead: the run is enqueued again and completes.
    await waitForQuiet(d, 30_000);
    await expectAllCompletedInOrder(d, 3);
    const { rows } = await d.db.query<{ started_at: number }>("SELECT started_at FROM runs WHERE id = $1", [
      heldRun,
    ]);
    expect(Number(rows[0]!.started_at)).toBeGreaterThanOrEqual(lockedUntil - 100);
  }, 60_000);

  it("answers 503 while PostgreSQL restarts, then every run completes once, in order", async () => {
    postgres = await startPrivatePostgres();
    d = await startSplitDeployment({
      sandboxes: 1,
      databaseUrl: postgres.url,
      env: { ...FAST, OAH_STALE_RUN_AFTER_MS: "8000" },
      sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2" },
    });
    const statuses: number[] = [];
    let probe: Run | undefined;
    let restarted: Promise<void> | undefined;
    for (let i = 0; i < 200; i++) {
      if (i === 60) restarted = postgres.restart(1_500);
      // A client retries with the same idempotency key until the run is accepted: never twice.
      for (;;) {
        const res = await d.client.post<{ run: Run; error?: { code: string } }>(
          `/api/v1/sessions/pg-${i % 20}/runs`,
          { input: { steps: [{ type: "sleep", ms: 10 }] }, idempotencyKey: `k-${i}` },
        );
        statuses.push(res.status);
        if (res.status === 202 || res.status === 200) {
          probe ??= res.body.run;
          break;
        }
        expect(res.status).toBe(503);
        expect(res.body.error?.code).toBe("store_unavailable");
        const read = await d.client.get<{ error: { code: string } }>(`/api/v1/runs/${probe!.id}`);
        expect([200, 503]).toContain(read.status);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await restarted;
    expect(statuses).toContain(503);
    await waitForQuiet(d, 90_000);
    await expectAllCompletedInOrder(d, 200);
  }, 150_000);
});
