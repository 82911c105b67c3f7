// @module-tag system

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type SplitDeployment,
  sleepers,
  startSplitDeployment,
  uniqueSleep,
  waitFor,
  waitForWorkspaceFile,
} from "@oah/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf } from "./support";

describe("split mode behaviour", () => {
  let d: SplitDeployment | undefined;
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
  });

  it("starts a subagent run before 50 normal sessions that were waiting longer, when all slots are busy", async () => {
    d = await startSplitDeployment({
      sandboxes: 1,
      // Held waits: each blocker holds its slot until the test lets it go, however slow the submissions below.
      sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2", OAH_WAIT_MODE: "hold" },
    });
    const gated = { input: { steps: [{ type: "wait_tool" as const, name: "gate" }] } };
    const blockers = [
      (await clientOf(d).submit("blocker-1", gated)).run,
      (await clientOf(d).submit("blocker-2", gated)).run,
    ];
    for (const b of blockers) await clientOf(d).wait(b.id, { until: ["waiting_tool"] });
    const normal = [];
    for (let i = 0; i < 50; i++)
      normal.push(
        (await clientOf(d).submit(`normal-${i}`, { input: { steps: [{ type: "sleep", ms: 1 }] } })).run,
      );
    const child = (
      await clientOf(d).submit("child-session", {
        input: { steps: [{ type: "sleep", ms: 1 }] },
        priority: "subagent",
        parentRunId: blockers[0]!.id,
      })
    ).run;
    expect((await clientOf(d).get(normal[0]!.id)).status).toBe("queued");
    for (const b of blockers) await clientOf(d).submitToolResult(b.id, "gate", {});

    const started = await clientOf(d).wait(child.id);
    const done = await Promise.all(normal.map((r) => clientOf(d!).wait(r.id)));
    const firstNormal = Math.min(...done.map((r) => Date.parse(r.startedAt!)));
    expect(Date.parse(started.startedAt!)).toBeLessThanOrEqual(firstNormal);
    expect(started).toMatchObject({
      status: "completed",
      priority: "subagent",
      parentRunId: blockers[0]!.id,
    });
  });

  it("cancels a run executing in a sandbox through the API process within a second, and stops its shell", async () => {
    d = await startSplitDeployment({ sandboxes: 1 });
    const marker = uniqueSleep();
    const run = (
      await clientOf(d).submit("cancel-across", {
        input: { steps: [{ type: "shell", command: `sleep ${marker} & setsid -f sleep ${marker}; wait` }] },
      })
    ).run;
    await waitFor("the shell's children", async () => sleepers(marker).length === 2);
    const asked = Date.now();
    expect((await d.client.post(`/api/v1/runs/${run.id}/cancel`)).status).toBe(202);
    const ended = await clientOf(d).wait(run.id, { timeoutMs: 5_000 });
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(ended.status).toBe("cancelled");
    expect(sleepers(marker)).toEqual([]);
  });

  it("cancels through the stored flag, found on the next heartbeat, when the notification is missed", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: { OAH_RUN_HEARTBEAT_INTERVAL_MS: "300" } });
    const run = (
      await clientOf(d).submit("missed-cancel", { input: { steps: [{ type: "sleep", ms: 60_000 }] } })
    ).run;
    await clientOf(d).wait(run.id, { until: ["running"] });
    // What the API does, minus the pub/sub message: only the store knows.
    await d.db.query("UPDATE runs SET cancel_requested_at = $1 WHERE id = $2", [Date.now(), run.id]);
    const ended = await clientOf(d).wait(run.id, { timeoutMs: 5_000 });
    expect(ended.status).toBe("cancelled");
  });

  it("fences out a frozen sandbox: the run is recovered, executed by another, and ends once", async () => {
    const fast = {
      OAH_SESSION_LOCK_TTL_MS: "1500",
      OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
      OAH_STALE_RUN_AFTER_MS: "2500",
      OAH_RECOVERY_SCAN_INTERVAL_MS: "500",
      OAH_WORKERS_MIN: "1",
      OAH_WORKERS_MAX: "1",
    };
    d = await startSplitDeployment({ sandboxes: 1, env: fast });
    const [frozen] = d.sandboxes;
    // The first execution (which freezes) marks the workspace and takes long; a second one is quick.
    const run = (
      await clientOf(d).submit("fenced", {
        input: {
          steps: [
            {
              type: "shell",
              command: "if [ -f first ]; then echo second; else touch first; sleep 3; echo first; fi",
            },
            { type: "output", value: "done" },
          ],
        },
        workspaceId: "fenced",
      })
    ).run;
    const next = (
      await clientOf(d).submit("fenced", { input: { steps: [{ type: "output", value: "after" }] } })
    ).run;
    const running = await clientOf(d).wait(run.id, { until: ["running"] });
    await waitForWorkspaceFile(d.env, "fenced", "first");
    frozen!.child.kill("SIGSTOP");
    try {
      const rescuer = await d.addSandbox();
      const rescued = await clientOf(d).wait(run.id, { timeoutMs: 20_000 });
      expect(rescued).toMatchObject({ status: "completed", output: "done", attempt: 2 });
      expect(rescued.workerId).not.toBe(running.workerId);
      expect(rescued.workerId).toContain(`-${rescuer.child.pid}-`);
      expect(rescued.metadata).toMatchObject({
        recoveryAttempts: 1,
        recovery: { reason: "automatic_requeue" },
      });
    } finally {
      frozen!.child.kill("SIGCONT");
    }
    // The frozen sandbox wakes up, finds its shell done and is refused every write: it says so
    // once its execution has ended, with nothing of it written.
    await waitFor(
      "the frozen sandbox to end its execution of the run",
      async () =>
        frozen!
          .output()
          .split("\n")
          .some(
            (line) =>
              line.includes(run.id) &&
              /execution stopped without a terminal write|its result was discarded/.test(line),
          ),
      20_000,
    );
    const types = (await clientOf(d).listEvents(run.id)).items.map((e) => e.type);
    expect(types.filter((t) => t === "run.completed")).toHaveLength(1);
    expect(types.filter((t) => t === "tool.completed")).toHaveLength(1);
    expect(types.filter((t) => t.startsWith("run.") && t !== "run.started" && t !== "run.queued")).toEqual([
      "run.requeued",
      "run.completed",
    ]);
    const final = await clientOf(d).get(run.id);
    expect(final).toMatchObject({ status: "completed", attempt: 2 });
    const shell = (await clientOf(d).steps(run.id)).filter(
      (s) => (s.output as { stdout?: string } | null)?.stdout !== undefined,
    );
    // The frozen execution's step stays as it was when it lost the run; only the rescuer's finished.
    expect(shell.filter((s) => s.status === "completed").map((s) => s.output)).toEqual([
      expect.objectContaining({ stdout: "second\n" }),
    ]);
    expect((await clientOf(d).wait(next.id)).status).toBe("completed");
  }, 60_000);

  it("keeps each worker host's executions in its local history.db, and goes on without it when it cannot", async () => {
    d = await startSplitDeployment({ sandboxes: 1 });
    const run = (
      await clientOf(d).submit("journal", {
        input: { steps: [{ type: "shell", command: "echo journaled" }] },
      })
    ).run;
    await clientOf(d).wait(run.id);
    const file = join(d.env.OAH_DATA_DIR!, ".openharness", "data", "history.db");
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare("SELECT run_id, status, attempt FROM executions").all()).toEqual([
        { run_id: run.id, status: "completed", attempt: 1 },
      ]);
      const steps = db.prepare("SELECT kind, name, status, output FROM step_outputs").all() as {
        output: string;
      }[];
      expect(steps).toMatchObject([{ kind: "tool", name: "shell", status: "completed" }]);
      expect(JSON.parse(steps[0]!.output)).toMatchObject({ stdout: "journaled\n" });
    } finally {
      db.close();
    }

    // A second host whose data directory cannot hold the file: a warning, and its runs still complete.
    const broken = mkdtempSync(join(tmpdir(), "oah-broken-"));
    mkdirSync(join(broken, ".openharness"));
    writeFileSync(join(broken, ".openharness", "data"), "not a directory");
    await d.sandboxes[0]!.stop("SIGTERM");
    const other = await d.addSandbox({
      OAH_DATA_DIR: broken,
      OAH_WORKSPACE_ROOT: join(d.env.OAH_DATA_DIR!, "workspaces"),
      OAH_LOG_LEVEL: "warn",
    });
    const later = (await clientOf(d).submit("journal", { input: { steps: [{ type: "output", value: 2 }] } }))
      .run;
    expect((await clientOf(d).wait(later.id)).status).toBe("completed");
    expect(other.output()).toMatch(/the local history.db cannot be opened; going on without it/);
    rmSync(broken, { recursive: true, force: true });
  });
});
