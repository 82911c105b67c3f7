// @module-tag system

import type { StorageOverview } from "@oah/contract";
import {
  crashAsked,
  crashingStep,
  expectAllCompletedInOrder,
  type OahProcess,
  type SplitDeployment,
  startSplitDeployment,
  waitFor,
  waitForQuiet,
  waitForWorkspaceFile,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf, FAST_RECOVERY, waitForCompleted } from "./support";

const FAST = {
  ...FAST_RECOVERY,
  OAH_WORKERS_MIN: "1",
  OAH_WORKERS_MAX: "1",
};

const ms = (iso: string | null) => Date.parse(iso ?? "");

async function crash(sandbox: OahProcess): Promise<void> {
  expect(await sandbox.stop("SIGKILL")).toBe("SIGKILL");
}

describe("recovery of runs whose worker died", () => {
  let d: SplitDeployment | undefined;
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
  });

  it("requeues a running run after kill -9 (requeue_running); it runs again and its session follows in order", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: FAST });
    const first = (
      await clientOf(d).submit("k9", {
        input: {
          steps: [
            { type: "shell", command: "if [ -f once ]; then echo again; else touch once; sleep 30; fi" },
            { type: "output", value: "first" },
          ],
        },
        workspaceId: "k9",
      })
    ).run;
    const later = [
      (await clientOf(d).submit("k9", { input: { steps: [{ type: "output", value: "second" }] } })).run,
      (await clientOf(d).submit("k9", { input: { steps: [{ type: "output", value: "third" }] } })).run,
    ];
    await waitForWorkspaceFile(d.env, "k9", "once");
    const killedAt = Date.now();
    await crash(d.sandboxes[0]!);
    await d.addSandbox();

    const done = await clientOf(d).wait(first.id);
    expect(done).toMatchObject({
      status: "completed",
      output: "first",
      attempt: 2,
      recoveryState: "requeued",
      metadata: {
        recoveryAttempts: 1,
        recovery: { state: "requeued", reason: "automatic_requeue", attempts: 1 },
      },
    });
    expect(ms(done.startedAt)).toBeGreaterThan(killedAt);
    const types = (await clientOf(d).listEvents(first.id)).items.map((e) => e.type);
    expect(types).toEqual([
      "run.queued",
      "run.started",
      "tool.started",
      "run.requeued",
      "run.queued",
      "run.started",
      "tool.started",
      "tool.completed",
      "run.completed",
    ]);
    const rest = await Promise.all(later.map((r) => clientOf(d!).wait(r.id)));
    expect(rest.map((r) => r.output)).toEqual(["second", "third"]);
    expect(ms(rest[0]!.startedAt)).toBeGreaterThanOrEqual(ms(done.endedAt));
    expect(ms(rest[1]!.startedAt)).toBeGreaterThanOrEqual(ms(rest[0]!.endedAt));
  });

  it("kill -9 of a sandbox whose slots claim ahead: every run completes once, in order", async () => {
    const SESSIONS = 50;
    const RUNS = 10;
    const slots = { OAH_WORKERS_MIN: "4", OAH_WORKERS_MAX: "4", OAH_CLAIM_AHEAD_RUN_MS: "50" };
    d = await startSplitDeployment({ sandboxes: 0, env: { ...FAST, ...slots } });
    // A backlog of very short runs, in place before any worker exists: every slot claims ahead.
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        for (let k = 0; k < RUNS; k++) await clientOf(d!).submit(`ahead-${i}`, { input: { steps: [] } });
      }),
    );
    const doomed = await d.addSandbox();
    await d.addSandbox();
    await waitForCompleted(d, (SESSIONS * RUNS) / 3);
    const metrics = await fetch(`${doomed.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^oah_claims_ahead_total\{outcome="taken"\} [1-9]\d*$/m);
    await crash(doomed);

    // What the dead sandbox had claimed (ahead, or to start) is gone from Redis but queued in
    // the store: the survivor's reconcile enqueues it again.
    await waitForQuiet(d);
    await expectAllCompletedInOrder(d, SESSIONS * RUNS);
  });

  // requeue_running does the same with a held wait that has a checkpoint (every wait has one):
  // durable-runs.test.ts shows it with steps before the wait.
  it("after kill -9 of a run held in waiting_tool (OAH_WAIT_MODE=hold), requeue_all requeues it into the same wait", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      env: { ...FAST, OAH_WAIT_MODE: "hold", OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_all" },
    });
    const run = (
      await clientOf(d).submit("waiting", {
        input: {
          steps: [
            { type: "wait_tool", name: "approve" },
            { type: "output", value: "approved" },
          ],
        },
      })
    ).run;
    await clientOf(d).wait(run.id, { until: ["waiting_tool"] });
    await crash(d.sandboxes[0]!);
    await d.addSandbox();
    const waitingAgain = await waitFor("the run waiting for its tool again", async () => {
      const again = await clientOf(d!).get(run.id);
      return again.status === "waiting_tool" && again.attempt === 2 && again;
    });
    expect(waitingAgain.metadata).toMatchObject({
      recoveryAttempts: 1,
      recovery: { reason: "automatic_requeue" },
    });
    await clientOf(d).submitToolResult(run.id, "approve", true);
    expect(await clientOf(d).wait(run.id)).toMatchObject({
      status: "completed",
      output: "approved",
    });
  });

  it("quarantines a run that keeps killing its worker after max attempts; an operator requeues it and it completes", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      env: { ...FAST, OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS: "2" },
    });
    // Its first three executions end in a crash of the sandbox executing it.
    const killer = (
      await clientOf(d).submit("killer", {
        input: { steps: [crashingStep(3), { type: "output", value: "survived" }] },
        workspaceId: "killer",
      })
    ).run;
    // Each execution crashes its sandbox; a new sandbox takes over until recovery gives up on the run.
    const quarantined = await waitFor(
      "the run to be quarantined",
      async () => {
        await crashAsked(d!, killer.id, "killer");
        const run = await clientOf(d!).get(killer.id);
        if (run.recoveryState === "quarantined") return run;
        const latest = d!.sandboxes.at(-1)!;
        if (latest.child.exitCode !== null || latest.child.signalCode !== null) await d!.addSandbox();
        return undefined;
      },
      60_000,
      100,
    );
    expect(quarantined).toMatchObject({
      status: "failed",
      errorCode: "worker_recovery_failed",
      attempt: 3,
      metadata: { recoveryAttempts: 2, recovery: { state: "quarantined", reason: "max_attempts_exhausted" } },
    });
    const overview = (await d.client.get<StorageOverview>("/api/v1/storage/overview")).body;
    expect(overview.recovery).toMatchObject({
      quarantinedRuns: 1,
      topQuarantineReasons: [{ reason: "max_attempts_exhausted", count: 1 }],
      newestQuarantinedAt: quarantined.metadata.recovery!.deadLetter!.at,
      oldestQuarantinedAt: quarantined.metadata.recovery!.deadLetter!.at,
    });

    if (d.sandboxes.at(-1)!.child.exitCode !== null) await d.addSandbox();
    const requeued = await d.client.post(`/api/v1/runs/${killer.id}/requeue`, { requestedBy: "ops" });
    expect(requeued.status).toBe(202);
    const done = await clientOf(d).wait(killer.id);
    expect(done).toMatchObject({
      status: "completed",
      output: "survived",
      attempt: 4,
      metadata: { recoveryAttempts: 0, recovery: { strategy: "manual", manualRequeueCount: 1 } },
    });
  }, 90_000);

  it("recovers the run of a sandbox frozen past the stale threshold by a periodic scan of another, no restart", async () => {
    d = await startSplitDeployment({ sandboxes: 2, env: FAST });
    const run = (
      await clientOf(d).submit("frozen", {
        input: {
          steps: [
            { type: "shell", command: "if [ -f once ]; then echo again; else touch once; sleep 30; fi" },
            { type: "output", value: "rescued" },
          ],
        },
        workspaceId: "frozen",
      })
    ).run;
    const running = await clientOf(d).wait(run.id, { until: ["running"] });
    // Frozen only once its shell has left its mark: a second execution must then be quick.
    await waitForWorkspaceFile(d.env, "frozen", "once");
    const owner = d.sandboxes.find((s) => running.workerId?.includes(`-${s.child.pid}-`))!;
    const other = d.sandboxes.find((s) => s !== owner)!;
    owner.child.kill("SIGSTOP");
    try {
      const done = await clientOf(d).wait(run.id, { timeoutMs: 20_000 });
      expect(done).toMatchObject({ status: "completed", output: "rescued", attempt: 2 });
      expect(done.workerId).toContain(`-${other.child.pid}-`);
      expect(done.metadata.recovery?.lastRecoveredBy).toContain(`-${other.child.pid}-`);
    } finally {
      owner.child.kill("SIGCONT");
    }
  });

  it("drains on SIGTERM: exits 0 and hands the run it could not finish to recovery, which requeues it", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: { ...FAST, OAH_DRAIN_TIMEOUT_MS: "300" } });
    const run = (
      await clientOf(d).submit("drained", {
        input: {
          steps: [
            { type: "shell", command: "if [ -f once ]; then echo again; else touch once; sleep 30; fi" },
            { type: "output", value: "finished elsewhere" },
          ],
        },
        workspaceId: "drained",
      })
    ).run;
    await waitForWorkspaceFile(d.env, "drained", "once");
    expect(await d.sandboxes[0]!.stop("SIGTERM")).toBe(0);
    const requeued = await clientOf(d).get(run.id);
    expect(requeued).toMatchObject({ status: "queued", metadata: { recoveryAttempts: 1 } });
    await d.addSandbox();
    expect(await clientOf(d).wait(run.id)).toMatchObject({
      status: "completed",
      output: "finished elsewhere",
      attempt: 2,
    });
  });
});
