// @module-tag system

import {
  expectAllCompletedInOrder,
  hostPidOf,
  type SplitDeployment,
  startRedisCluster,
  startSplitDeployment,
  type TestRedisCluster,
  waitFor,
  waitForQuiet,
} from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clientOf, FAST_RECOVERY, waitForCompleted } from "./support";

/** Split mode on a real three-node Redis Cluster (OAH_REDIS_CLUSTER_NODES), started by the test. */
describe("split mode on a Redis Cluster", () => {
  let cluster: TestRedisCluster;
  let d: SplitDeployment | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  });
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
  });
  afterAll(() => cluster?.stop());

  it("runs 20 sessions × 5 runs over oah-api --api-only and two sandboxes, each session serial and in order", async () => {
    d = await startSplitDeployment({ sandboxes: 2, redisCluster: cluster });
    const submitted = [];
    for (let run = 0; run < 5; run++)
      for (let s = 0; s < 20; s++)
        submitted.push(
          clientOf(d)
            .submit(`cluster-${s}`, { input: { steps: [{ type: "sleep", ms: 5 + (s % 4) * 5 }] } })
            .then((r) => r.run),
        );
    await Promise.all(submitted);
    await waitForQuiet(d, 60_000);
    await expectAllCompletedInOrder(d, 100);
    // Both sandboxes took part; the state is on the cluster, in one slot of its own.
    const { rows } = await d.db.query<{ worker_id: string }>("SELECT DISTINCT worker_id FROM runs");
    const hosts = new Set(rows.map((r) => hostPidOf(r.worker_id)));
    expect(hosts).toEqual(new Set(d.sandboxes.map((s) => s.child.pid)));
    const keys = await d.redis.keys();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`{${d!.redis.prefix}}:`))).toBe(true);
    expect(new Set(await Promise.all(keys.map((k) => cluster.client.cluster("KEYSLOT", k)))).size).toBe(1);
  }, 90_000);

  it("cancels across processes over the cluster's pub/sub", async () => {
    d = await startSplitDeployment({ sandboxes: 1, redisCluster: cluster });
    const run = (
      await clientOf(d).submit("cluster-cancel", { input: { steps: [{ type: "sleep", ms: 60_000 }] } })
    ).run;
    await waitFor("the run to start", async () => (await clientOf(d!).get(run.id)).status === "running");
    const asked = Date.now();
    expect((await d.client.post(`/api/v1/runs/${run.id}/cancel`)).status).toBe(202);
    await waitFor("the cancel", async () => (await clientOf(d!).get(run.id)).status === "cancelled", 5_000);
    expect(Date.now() - asked).toBeLessThan(1_000);
  }, 60_000);

  it("loses nothing when every node is flushed while 100 runs are queued across 10 sessions", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      redisCluster: cluster,
      env: { ...FAST_RECOVERY, OAH_SESSION_LOCK_TTL_MS: "3000" },
      sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2" },
    });
    for (let i = 0; i < 100; i++) {
      const res = await d.client.post(`/api/v1/sessions/flush-${i % 10}/runs`, {
        input: { steps: [{ type: "sleep", ms: 40 }] },
      });
      expect(res.status).toBe(202);
    }
    await waitForCompleted(d, 20);
    await cluster.flushAll();
    await waitForQuiet(d, 60_000);
    const rows = await expectAllCompletedInOrder(d, 100);
    expect(rows.filter((r) => r.attempt !== 1)).toEqual([]);
  }, 90_000);

  it("enqueues again a queued run whose queue entry the cluster lost", async () => {
    d = await startSplitDeployment({
      sandboxes: 0,
      redisCluster: cluster,
      env: { ...FAST_RECOVERY, OAH_SESSION_LOCK_TTL_MS: "3000", OAH_STALE_RUN_AFTER_MS: "1000" },
      sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2" },
    });
    const lost = (await clientOf(d).submit("lost-entry", { input: { steps: [{ type: "sleep", ms: 10 }] } }))
      .run;
    await clientOf(d).submit("lost-entry", { input: { steps: [{ type: "sleep", ms: 10 }] } });
    const base = `{${d.redis.prefix}}:`;
    const redis = d.redis.client;
    await redis.set(`${base}marker`, String(Date.now()));
    await redis.multi().hdel(`${base}entries`, lost.id).zrem(`${base}queue:lost-entry`, lost.id).exec();
    await d.addSandbox();
    await waitForQuiet(d, 30_000);
    await expectAllCompletedInOrder(d, 2);
  }, 60_000);
});
