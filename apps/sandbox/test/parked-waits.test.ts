// @module-tag system

import { createClient, type OahClient, type Run } from "@oah/client";
import {
  maintenancePassAfter,
  type OahProcess,
  type SplitDeployment,
  startOah,
  startSplitDeployment,
  waitFor,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf, FAST_RECOVERY, inWaves, waitForCompleted } from "./support";

const ms = (iso: string | null) => Date.parse(iso ?? "");

const count = async (d: SplitDeployment, where: string): Promise<number> =>
  (await d.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE ${where}`)).rows[0]!.n;

const waitForParked = (d: SplitDeployment, n: number) =>
  waitFor(
    `${n} runs parked`,
    async () => (await count(d, "parked_at IS NOT NULL")) >= n || undefined,
    60_000,
  );

/** A run that waits for the client's `approve`, then outputs `value`. */
const approval = (value: unknown) => ({
  input: {
    steps: [
      { type: "wait_tool" as const, name: "approve" },
      { type: "output" as const, value: value as never },
    ],
  },
});

describe("parked waits (OAH_WAIT_MODE=park, the default) across processes", () => {
  let d: SplitDeployment | undefined;
  const extraApis: OahProcess[] = [];
  afterEach(async () => {
    await Promise.all(extraApis.splice(0).map((p) => p.stop("SIGKILL")));
    await d?.dispose();
    d = undefined;
  });

  it("one host of 8 slots: 500 parked sessions, 200 × 10 other runs meanwhile, then each parked run resumed through one of three API processes", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      sandboxEnv: { OAH_WORKERS_MIN: "8", OAH_WORKERS_MAX: "8" },
    });
    const deployment = d;
    for (let i = 0; i < 2; i++)
      extraApis.push(await startOah("oah-api", { env: d.env, args: ["--api-only"] }));
    const apis: OahClient[] = [clientOf(d), ...extraApis.map((p) => createClient({ baseUrl: p.url }))];

    const PARKED = 500;
    const FOLLOWED = 100; // parked sessions with a later run queued behind the parked one
    const parked = await inWaves(
      Array.from({ length: PARKED }),
      50,
      async (_, i) => (await apis[i % 3]!.submit(`parked-${i}`, approval({ session: i }))).run,
    );
    const later = await inWaves(
      Array.from({ length: FOLLOWED }),
      50,
      async (_, i) => (await apis[0]!.submit(`parked-${i}`, { input: { steps: [] } })).run,
    );
    // Meanwhile, 200 other sessions of 10 runs each go through the same 8 slots.
    const busy = Array.from({ length: 200 * 10 }, (_, i) => `busy-${i % 200}`);
    await inWaves(busy, 100, (sessionId, i) => apis[i % 3]!.submit(sessionId, { input: { steps: [] } }));
    await waitForParked(d, PARKED);
    await waitForCompleted(d, busy.length);
    await waitFor("the other runs to complete", async () => {
      return (
        (await count(deployment, "session_id LIKE 'busy-%' AND status = 'completed'")) === busy.length ||
        undefined
      );
    });

    // Nothing of a parked session went ahead: its later run waits, queued.
    expect(
      await count(d, "session_id LIKE 'parked-%' AND status <> 'waiting_tool' AND status <> 'queued'"),
    ).toBe(0);
    for (const run of later) expect((await apis[1]!.get(run.id)).status).toBe("queued");
    const sample = await apis[2]!.get(parked[0]!.id);
    expect(sample).toMatchObject({ status: "waiting_tool", workerId: null, metadata: { parked: true } });
    // The host's next snapshot shows all 8 workers idle beside the 500 parked runs.
    const pool = await waitFor("the host's workers idle", async () => {
      const overview = await apis[0]!.pool();
      return overview.hosts[0]?.busyWorkers === 0 && overview;
    });
    expect(pool.parkedRuns).toBe(PARKED);
    expect(pool.hosts[0]).toMatchObject({ activeWorkers: 8 });
    expect(pool.workspaces).toEqual([
      { workspaceId: "default", readySessions: 0, executingRuns: 0, parkedRuns: PARKED },
    ]);

    // Each result through one API process, the next through another.
    await inWaves(parked, 50, (run, i) => apis[i % 3]!.submitToolResult(run.id, "approve", { approver: i }));
    const done = await inWaves(parked, 50, (run, i) =>
      apis[(i + 1) % 3]!.wait(run.id, { timeoutMs: 60_000 }),
    );
    const after = await inWaves(later, 50, (run) => apis[0]!.wait(run.id, { timeoutMs: 60_000 }));
    for (const [i, run] of done.entries()) {
      expect(run).toMatchObject({ status: "completed", output: { session: i }, attempt: 1, metadata: {} });
      expect(run.metadata.parked).toBeUndefined();
    }
    // The result each run was given, in its own tool step.
    const steps = await inWaves(parked.slice(0, 50), 50, (run) => apis[0]!.steps(run.id));
    for (const [i, list] of steps.entries()) {
      expect(list).toMatchObject([{ kind: "tool", name: "approve", output: { approver: i } }]);
    }
    // The session order held: each later run started only after its parked run ended.
    for (const [i, run] of after.entries()) {
      expect(run.status).toBe("completed");
      expect(ms(run.startedAt)).toBeGreaterThanOrEqual(ms(done[i]!.endedAt));
    }
    expect(await count(d, "status <> 'completed'")).toBe(0);
  });

  it("kill -9 of the host while 100 runs are parked: none is failed, requeued or quarantined, all resume; one past its deadline ends timed_out", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      env: { ...FAST_RECOVERY, OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running" },
    });
    const c = clientOf(d);
    const runs: Run[] = await inWaves(
      Array.from({ length: 100 }),
      50,
      async (_, i) => (await c.submit(`crash-parked-${i}`, approval(i))).run,
    );
    // Its deadline falls after the checks below, made while it is parked like the others.
    const deadline = (await c.submit("crash-parked-deadline", { ...approval("late"), timeoutMs: 12_000 }))
      .run;
    await waitForParked(d, 101);

    const killedAt = Date.now();
    expect(await d.sandboxes[0]!.stop("SIGKILL")).toBe("SIGKILL");
    const survivor = await d.addSandbox();
    // A stale-run scan of the new host begun once runs executing on the dead one would be stale
    // (their heartbeats 2 s old, its lease gone): one that would have recovered them.
    await maintenancePassAfter(
      survivor.url,
      "stale-runs",
      killedAt + Number(FAST_RECOVERY.OAH_STALE_RUN_AFTER_MS),
    );
    expect(await count(d, "parked_at IS NOT NULL AND status = 'waiting_tool'")).toBe(101);
    expect(await count(d, "recovery_state IS NOT NULL")).toBe(0);
    expect(
      (await d.db.query("SELECT 1 FROM run_events WHERE type IN ('run.requeued', 'run.failed')")).rowCount,
    ).toBe(0);

    await waitFor("the run past its deadline to time out", async () => {
      return (await c.get(deadline.id)).status === "timed_out" || undefined;
    });
    expect(await c.get(deadline.id)).toMatchObject({ errorCode: "run_timed_out", metadata: {} });

    await inWaves(runs, 50, (run, i) => c.submitToolResult(run.id, "approve", { i }));
    const done = await inWaves(runs, 50, (run) => c.wait(run.id, { timeoutMs: 30_000 }));
    for (const [i, run] of done.entries()) {
      expect(run).toMatchObject({ status: "completed", output: i, attempt: 1, recoveryState: null });
    }
  });
});
