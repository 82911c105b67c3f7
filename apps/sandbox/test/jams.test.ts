// @module-tag system

import type { JamRepair, JamReport, Run, SessionInspection, SubmitRunRequest } from "@oah/contract";
import type { JamKind } from "@oah/core";
import { type SplitDeployment, startSplitDeployment, waitFor } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf } from "./support";

/**
 * Quick heartbeats and worker leases, so that a dead holder shows within a second, with a lock
 * long enough to be seen held meanwhile; reconcile and the stale-run scan out of the way, so
 * that each jam stays until its repair.
 */
const JAM_ENV = {
  OAH_SESSION_LOCK_TTL_MS: "6000",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
  OAH_STALE_RUN_AFTER_MS: "1500",
  OAH_RECOVERY_SCAN_INTERVAL_MS: "600000",
  OAH_POOL_SCALE_INTERVAL_MS: "300",
  OAH_WORKERS_MIN: "1",
  OAH_WORKERS_MAX: "1",
};

const sleep = (ms: number): SubmitRunRequest => ({ input: { steps: [{ type: "sleep", ms }] } });

async function jams(d: SplitDeployment): Promise<Record<JamKind, string[]>> {
  const { body } = await d.client.get<JamReport>("/api/v1/health/jams");
  return Object.fromEntries(body.classes.map((c) => [c.kind, c.sessions])) as Record<JamKind, string[]>;
}

const waitForJam = (d: SplitDeployment, kind: JamKind, sessionId: string) =>
  waitFor(`${sessionId} to show ${kind}`, async () => (await jams(d))[kind].includes(sessionId), 20_000, 100);

async function repair(d: SplitDeployment, kind: JamKind, body: object = {}): Promise<JamRepair> {
  const { status, body: result } = await d.client.post<JamRepair>(`/api/v1/health/jams/${kind}/repair`, body);
  expect(status).toBe(200);
  return result;
}

const inspect = async (d: SplitDeployment, sessionId: string) =>
  (await d.client.get<SessionInspection>(`/api/v1/sessions/${sessionId}/inspect`)).body;

/** The runs completed, each started after the one before it ended. */
async function expectCompletedInOrder(d: SplitDeployment, runs: readonly Run[]): Promise<void> {
  const done = [];
  for (const run of runs) done.push(await clientOf(d).wait(run.id, { timeoutMs: 30_000 }));
  expect(done.map((r) => r.status)).toEqual(runs.map(() => "completed"));
  for (let i = 1; i < done.length; i++)
    expect(Date.parse(done[i]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(done[i - 1]!.endedAt!));
}

describe("jammed sessions, made for real, found and repaired (docs/spec.md §7)", () => {
  let d: SplitDeployment | undefined;
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
  });

  it("a run lost by the queue, a lost wake and an empty ready entry: counted, repaired, and the runs go on in order", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: JAM_ENV });
    const client = clientOf(d);
    const redis = d.redis.client;
    const key = (name: string) => `{${d!.redis.prefix}}:${name}`;
    // The one worker is kept busy while the dirt is made.
    const blocker = (await client.submit("blocker", sleep(60_000))).run;
    await client.wait(blocker.id, { until: ["running"] });
    const lostRun = [
      (await client.submit("lost-run", sleep(1))).run,
      (await client.submit("lost-run", sleep(1))).run,
    ];
    const lostWake = [
      (await client.submit("lost-wake", sleep(1))).run,
      (await client.submit("lost-wake", sleep(1))).run,
    ];
    // A run deleted from the queue (Redis flushed it, say); a session out of the ready set though
    // it has runs (a wake lost to a bug); a ready entry with no runs.
    await redis.zrem(key("queue:lost-run"), lostRun[0]!.id);
    await redis.hdel(key("entries"), lostRun[0]!.id);
    await redis.zrem(key("ready:normal"), "lost-wake");
    await redis.zrem(key("wready:default:normal"), "lost-wake");
    await redis.hdel(key("session-ws"), "lost-wake");
    await redis.zadd(key("ready:normal"), Date.now() - 1_000, "ghost");

    await waitForJam(d, "lost_run", "lost-run");
    await waitForJam(d, "lost_wake", "lost-wake");
    expect(await jams(d)).toEqual({
      orphan_lock: [],
      stale_ready: ["ghost"],
      lost_run: ["lost-run"],
      lost_wake: ["lost-wake"],
      stale_active: [],
    });
    const metrics = await (await fetch(`${d.api.url}/metrics`)).text();
    for (const [kind, n] of Object.entries({ stale_ready: 1, lost_run: 1, lost_wake: 1, orphan_lock: 0 }))
      expect(metrics).toContain(`oah_jammed_sessions{kind="${kind}"} ${n}`);
    const overview = (await d.client.get<{ jams: Record<JamKind, number> }>("/api/v1/storage/overview")).body;
    expect(overview.jams).toEqual({
      orphan_lock: 0,
      stale_ready: 1,
      lost_run: 1,
      lost_wake: 1,
      stale_active: 0,
    });
    const seen = await inspect(d, "lost-run");
    expect(seen.head).toBe(lostRun[0]!.id);
    expect(seen.runs.map((r) => [r.position, r.inQueue])).toEqual([
      [1, false],
      [2, true],
    ]);

    for (const kind of ["lost_run", "lost_wake", "stale_ready"] as const)
      expect(await repair(d, kind)).toMatchObject({ kind, repaired: 1, skipped: 0 });
    expect(Object.values(await jams(d)).flat()).toEqual([]);
    expect((await inspect(d, "lost-run")).runs.map((r) => r.inQueue)).toEqual([true, true]);

    await client.cancel(blocker.id);
    await expectCompletedInOrder(d, lostRun);
    await expectCompletedInOrder(d, lostWake);
    const audit = await d.client.get<{ items: { action: string; target: string; outcome: object }[] }>(
      "/api/v1/audit?action=jam.repair",
    );
    expect(audit.body.items.map((e) => [e.target, e.outcome])).toEqual(
      ["stale_ready", "lost_wake", "lost_run"].map((kind) => [kind, { ok: true, repaired: 1, skipped: 0 }]),
    );
  }, 90_000);

  it("a lock whose holder still renews it is never broken; a killed holder's lock and its stale run are repaired, and the session goes on in order", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: JAM_ENV });
    const client = clientOf(d);
    const sandbox = d.sandboxes[0]!;

    // A holder frozen long enough to look dead, then renewing again: the repair is refused.
    const renewing = (await client.submit("renewing", sleep(4_000))).run;
    await client.wait(renewing.id, { until: ["running"] });
    const held = (await inspect(d, "renewing")).lock!;
    expect(held).toMatchObject({ holder: renewing.id, workerId: expect.stringMatching(/\/w\d+$/) });
    sandbox.child.kill("SIGSTOP");
    await waitForJam(d, "orphan_lock", "renewing");
    sandbox.child.kill("SIGCONT");
    await waitFor(
      "the holder to renew its lock",
      async () => (await inspect(d!, "renewing")).lock!.silentMs < 300,
    );
    expect(await repair(d, "orphan_lock", { sessionIds: ["renewing"] })).toMatchObject({
      repaired: 0,
      skipped: 1,
    });
    expect((await inspect(d, "renewing")).lock?.token).toBe(held.token);
    expect(await client.wait(renewing.id)).toMatchObject({ status: "completed", attempt: 1 });

    // A holder killed with its run in hand: its lock outlives it, its run goes stale.
    const killed = [
      (await client.submit("killed", sleep(3_000))).run,
      (await client.submit("killed", sleep(1))).run,
      (await client.submit("killed", sleep(1))).run,
    ];
    await client.wait(killed[0]!.id, { until: ["running"] });
    const lock = (await inspect(d, "killed")).lock!;
    expect(lock).toMatchObject({ holder: killed[0]!.id, hostId: expect.stringMatching(/^sandbox-/) });
    expect(await sandbox.stop("SIGKILL")).toBe("SIGKILL");
    await waitForJam(d, "orphan_lock", "killed");
    expect(await repair(d, "orphan_lock")).toMatchObject({
      repaired: 1,
      skipped: 0,
      sessions: { repaired: ["killed"] },
    });
    expect((await inspect(d, "killed")).lock).toBeNull();
    await waitForJam(d, "stale_active", "killed");
    // Its host's lease, listing the run, lapses a lock TTL after its last renewal: until then it is left alone.
    await waitFor(
      "the dead host's lease to lapse",
      async () => (await d!.redis.client.exists(`{${d!.redis.prefix}}:host:${lock.hostId}`)) === 0,
      20_000,
    );
    expect(await repair(d, "stale_active")).toMatchObject({ repaired: 1, skipped: 0 });
    expect((await client.get(killed[0]!.id)).status).toBe("queued");
    await d.addSandbox();
    await expectCompletedInOrder(d, killed);
    expect(Object.values(await jams(d)).flat()).toEqual([]);
  }, 120_000);
});
