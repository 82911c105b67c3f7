// @module-tag system

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Run } from "@oah/contract";
import {
  type SplitDeployment,
  sleepers,
  sleepersGone,
  startSplitDeployment,
  uniqueSleep,
  waitFor,
  workspaceDir,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf, FAST_RECOVERY } from "./support";

/** Recovery within seconds; a liveness window of 1.2 s (lock TTL − heartbeat interval). */
const FAST = {
  ...FAST_RECOVERY,
  OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running",
  OAH_WORKERS_MIN: "4",
  OAH_WORKERS_MAX: "4",
};

/**
 * A step whose first execution marks "start A" and sleeps (until its host dies), and
 * whose second marks "start B", sleeps a little and marks "end B": the file of marks
 * shows whether the two ever overlapped.
 */
const markingStep = (marker: string) => ({
  type: "shell" as const,
  command: `if [ ! -e first ]; then touch first; echo "start A" >> marks; sleep ${marker}; echo "end A" >> marks; else echo "start B" >> marks; sleep 0.3; echo "end B" >> marks; fi`,
});

const ms = (iso: string | null) => Date.parse(iso ?? "");

interface MarkedRun {
  run: Run;
  marker: string;
  workspaceId: string;
}

describe("one execution at a time, side effects included (split mode, Redis and PostgreSQL)", () => {
  let d: SplitDeployment | undefined;
  afterEach(async () => {
    for (const s of d?.sandboxes ?? []) s.child.kill("SIGCONT");
    await d?.dispose();
    d = undefined;
  });

  const marks = (workspaceId: string) =>
    readFileSync(join(workspaceDir(d!.env, workspaceId), "marks"), "utf8");

  async function startMarkedRuns(count: number): Promise<MarkedRun[]> {
    const runs: MarkedRun[] = [];
    for (let i = 0; i < count; i++) {
      const marker = uniqueSleep();
      const workspaceId = `marks-${i}`;
      const run = (
        await clientOf(d!).submit(`marks-${i}`, {
          input: { steps: [markingStep(marker), { type: "output", value: i }] },
          workspaceId,
        })
      ).run;
      runs.push({ run, marker, workspaceId });
    }
    await waitFor("every first execution's step", async () =>
      runs.every(({ marker }) => sleepers(marker).length === 1),
    );
    return runs;
  }

  async function expectReexecutedAfter(runs: MarkedRun[], goneAt: number, by: number) {
    for (const { run, workspaceId } of runs) {
      const done = await clientOf(d!).wait(run.id, { timeoutMs: 20_000 });
      expect(done).toMatchObject({ status: "completed", attempt: 2, recoveryState: "requeued" });
      expect(done.workerId).toContain(`-${by}-`);
      expect(ms(done.startedAt)).toBeGreaterThan(goneAt);
      expect(marks(workspaceId)).toBe("start A\nstart B\nend B\n");
    }
  }

  it("kill -9 of a sandbox mid-step: its steps are gone within a second, and each run runs again only after", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: FAST });
    const [doomed] = d.sandboxes;
    const runs = await startMarkedRuns(4);
    const rescuer = await d.addSandbox();
    const killed = Date.now();
    await doomed!.stop("SIGKILL");
    for (const { marker } of runs)
      expect(await sleepersGone(marker, 1_000 - (Date.now() - killed))).toBe(true);
    const goneAt = Date.now();
    await expectReexecutedAfter(runs, goneAt, rescuer.child.pid!);
  });

  it("a sandbox frozen past its lease: the watchdog ends its steps before another sandbox runs them again", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: FAST });
    const [frozen] = d.sandboxes;
    const runs = await startMarkedRuns(2);
    const rescuer = await d.addSandbox();
    frozen!.child.kill("SIGSTOP");
    const stoppedAt = Date.now();
    // Within the liveness window (lock TTL − heartbeat interval = 1.2 s) of its last renewal.
    for (const { marker } of runs) expect(await sleepersGone(marker, 2_000)).toBe(true);
    const goneAt = Date.now();
    expect(goneAt - stoppedAt).toBeLessThan(2_000);
    await expectReexecutedAfter(runs, goneAt, rescuer.child.pid!);
    // Woken up, the frozen sandbox finds its runs gone and writes nothing more.
    frozen!.child.kill("SIGCONT");
    await new Promise((r) => setTimeout(r, 1_500));
    for (const { run, workspaceId } of runs) {
      const types = (await clientOf(d).listEvents(run.id)).items.map((e) => e.type);
      expect(types.filter((t) => t === "run.completed" || t === "run.failed")).toEqual(["run.completed"]);
      expect((await clientOf(d).get(run.id)).attempt).toBe(2);
      expect(marks(workspaceId)).toBe("start A\nstart B\nend B\n");
    }
    expect(frozen!.child.exitCode).toBeNull();
  });

  it("a cancel of a run whose host died is honoured by recovery: cancelled, never started again", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: FAST });
    const marker = uniqueSleep();
    const run = (
      await clientOf(d).submit("cancel-dead", {
        input: { steps: [{ type: "shell", command: `sleep ${marker}` }] },
      })
    ).run;
    const next = (
      await clientOf(d).submit("cancel-dead", { input: { steps: [{ type: "output", value: "next" }] } })
    ).run;
    await waitFor("the step", async () => sleepers(marker).length === 1);
    await d.sandboxes[0]!.stop("SIGKILL");
    const cancel = await d.client.post<{ status: string }>(`/api/v1/runs/${run.id}/cancel`);
    expect(cancel).toMatchObject({ status: 202, body: { status: "running" } });
    await d.addSandbox();
    const ended = await clientOf(d).wait(run.id, { timeoutMs: 20_000 });
    expect(ended).toMatchObject({ status: "cancelled", errorCode: null, attempt: 1 });
    expect(ended.metadata).not.toHaveProperty("recoveryAttempts");
    const types = (await clientOf(d).listEvents(run.id)).items.map((e) => e.type);
    expect(types).toEqual(["run.queued", "run.started", "tool.started", "run.cancelled"]);
    expect((await clientOf(d).wait(next.id)).output).toBe("next");
    // Requeued by hand only when asked explicitly.
    const refused = await d.client.post<{ error: { code: string } }>(`/api/v1/runs/${run.id}/requeue`, {});
    expect(refused).toMatchObject({ status: 409, body: { error: { code: "run_requeue_invalid_status" } } });
    const requeued = await d.client.post(`/api/v1/runs/${run.id}/requeue`, { includeCancelled: true });
    expect(requeued).toMatchObject({ status: 202, body: { status: "queued", previousStatus: "cancelled" } });
    await waitFor("the explicit re-execution", async () => sleepers(marker).length === 1);
    await clientOf(d).cancel(run.id);
    expect(await clientOf(d).wait(run.id)).toMatchObject({ status: "cancelled", attempt: 2 });
  });

  it("a cancel that arrives while a draining sandbox stops its run is honoured: cancelled, not requeued", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: { ...FAST, OAH_DRAIN_TIMEOUT_MS: "200" } });
    const marker = uniqueSleep();
    // A step that ignores SIGTERM: the drain's abort needs its grace period (2 s) to stop it.
    const run = (
      await clientOf(d).submit("drain-cancel", {
        input: { steps: [{ type: "shell", command: `trap '' TERM; sleep ${marker}` }] },
      })
    ).run;
    await waitFor("the step", async () => sleepers(marker).length === 1);
    const [host] = d.sandboxes;
    host!.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 600)); // past the drain timeout: the run is being stopped
    expect((await d.client.post(`/api/v1/runs/${run.id}/cancel`)).status).toBe(202);
    expect(await host!.exited).toBe(0);
    expect(sleepers(marker)).toEqual([]);
    const ended = await clientOf(d).get(run.id);
    expect(ended).toMatchObject({ status: "cancelled", attempt: 1 });
    expect((await clientOf(d).listEvents(run.id)).items.map((e) => e.type).at(-1)).toBe("run.cancelled");
  });

  it("a stale-looking run whose host still renews its lease is left to that host", async () => {
    d = await startSplitDeployment({ sandboxes: 2, env: FAST });
    const run = (
      await clientOf(d).submit("alive", {
        input: {
          steps: [
            { type: "shell", command: "sleep 3" },
            { type: "output", value: "once" },
          ],
        },
      })
    ).run;
    await clientOf(d).wait(run.id, { until: ["running"] });
    // As a host whose heartbeat writes do not reach the store would look: stale, for several scans.
    // (A real run is stale only after OAH_STALE_RUN_AFTER_MS without a heartbeat: by then its
    // host's lease, renewed with every heartbeat, has listed it for long. Here: one heartbeat later.)
    await new Promise((r) => setTimeout(r, 600));
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      await d.db.query("UPDATE runs SET heartbeat_at = 1 WHERE id = $1 AND status = 'running'", [run.id]);
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = await clientOf(d).wait(run.id);
    expect(done).toMatchObject({ status: "completed", output: "once", attempt: 1, recoveryState: null });
    expect((await clientOf(d).listEvents(run.id)).items.map((e) => e.type)).not.toContain("run.requeued");
  });
});
