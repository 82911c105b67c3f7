// @module-tag system

import type { Run, StorageOverview, StorageRunsPage } from "@oah/contract";
import { STORE_KINDS } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

interface ErrorBody {
  error: { code: string; message: string };
}

describe.each(STORE_KINDS)("operators' API on %s", (kind) => {
  let t: ApiUnderTest;
  let recovered: Run;
  let plainFailed: Run;
  let completed: Run;

  beforeAll(async () => {
    t = await startApi(kind, { OAH_WORKERS_MAX: "4" });
    completed = (await t.oah.submit("adm-done", { input: { steps: [{ type: "output", value: 1 }] } })).run;
    plainFailed = (
      await t.oah.submit("adm-fail", { input: { steps: [{ type: "fail", code: "tool_failed" }] } })
    ).run;
    const interrupted = (
      await t.oah.submit("adm-crash", { input: { steps: [{ type: "sleep", ms: 60_000 }] } })
    ).run;
    await t.oah.wait(interrupted.id, { until: ["running"] });
    await t.oah.wait(completed.id);
    await t.oah.wait(plainFailed.id);
    // A crash: at the next start the interrupted run is failed by recovery (strategy fail).
    await t.api.stop("SIGKILL");
    await t.restart();
    recovered = await t.oah.wait(interrupted.id);
  });
  afterAll(() => t?.dispose());

  it("answers a manual requeue by the rules, and the requeued run executes again", async () => {
    expect(recovered).toMatchObject({ status: "failed", errorCode: "worker_recovery_failed" });
    const refused = async (run: Run) =>
      (await t.client.post<ErrorBody>(`/api/v1/runs/${run.id}/requeue`, { requestedBy: "ops" })).body;
    expect(await refused(completed)).toMatchObject({ error: { code: "run_requeue_invalid_status" } });
    expect(await refused(plainFailed)).toMatchObject({ error: { code: "run_requeue_not_supported" } });
    const missing = await t.client.post<ErrorBody>("/api/v1/runs/run_01KB0000000000000000000000/requeue");
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "run_not_found" } } });

    const ok = await t.client.post(`/api/v1/runs/${recovered.id}/requeue`, { requestedBy: "ops" });
    expect(ok).toEqual({
      status: 202,
      body: { runId: recovered.id, status: "queued", previousStatus: "failed", source: "manual_requeue" },
    });
    // It waits for nobody: its sleep is long, so cancel it once it runs again.
    const again = await t.oah.wait(recovered.id, { until: ["running"] });
    expect(again).toMatchObject({
      attempt: 2,
      recoveryState: "requeued",
      // Who asked is the caller (the loopback default's `local`); the name it gave is beside.
      metadata: {
        recoveryAttempts: 0,
        recovery: { manualRequeueCount: 1, lastManualRequeueBy: "local", lastManualRequeueClaimedBy: "ops" },
      },
    });
    await t.oah.cancel(recovered.id);
    expect((await t.oah.wait(recovered.id)).status).toBe("cancelled");
    expect((await t.oah.listEvents(recovered.id)).items.map((e) => e.type)).toEqual(
      expect.arrayContaining(["run.failed", "run.requeued", "run.queued", "run.started", "run.cancelled"]),
    );
  });

  it("answers a bulk requeue item by item, each id once", async () => {
    const res = await t.client.post<{ items: { runId: string; status: string; errorCode?: string }[] }>(
      "/api/v1/runs/requeue",
      { runIds: [completed.id, plainFailed.id, completed.id, "run_01KB0000000000000000000000"] },
    );
    expect(res.status).toBe(200);
    expect(res.body.items.map((i) => [i.runId, i.status, i.errorCode])).toEqual([
      [completed.id, "error", "run_requeue_invalid_status"],
      [plainFailed.id, "error", "run_requeue_not_supported"],
      ["run_01KB0000000000000000000000", "error", "run_not_found"],
    ]);
    const tooMany = await t.client.post<ErrorBody>("/api/v1/runs/requeue", {
      runIds: Array.from({ length: 201 }, () => completed.id),
    });
    expect(tooMany).toMatchObject({ status: 400, body: { error: { code: "invalid_request" } } });
    const none = await t.client.post<ErrorBody>("/api/v1/runs/requeue", { runIds: [] });
    expect(none.status).toBe(400);
  });

  it("lists runs with filters and keyset pages, and refuses bad filters and forged cursors", async () => {
    for (let i = 0; i < 5; i++)
      await t.oah.submit("adm-list", { input: { steps: [] }, workspaceId: "adm-ws" });
    const first = await t.client.get<StorageRunsPage>("/api/v1/storage/runs?workspaceId=adm-ws&limit=2");
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.appliedFilters).toEqual({ workspaceId: "adm-ws" });
    const seen = [...first.body.items];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const page = await t.client.get<StorageRunsPage>(
        `/api/v1/storage/runs?workspaceId=adm-ws&limit=2&cursor=${encodeURIComponent(cursor)}`,
      );
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
    }
    expect(seen.map((r) => r.id)).toEqual([...seen.map((r) => r.id)].sort().reverse());
    expect(new Set(seen.map((r) => r.id)).size).toBe(5);
    // Summaries: the list never carries runs' inputs and outputs (the run's own endpoint has them).
    for (const item of seen) {
      expect(item).not.toHaveProperty("input");
      expect(item).not.toHaveProperty("output");
      expect(item).toMatchObject({
        workspaceId: "adm-ws",
        status: expect.any(String),
        metadata: expect.any(Object),
      });
    }

    const byState = await t.client.get<StorageRunsPage>(
      "/api/v1/storage/runs?status=failed,cancelled&errorCode=worker_recovery_failed,tool_failed",
    );
    expect(byState.body.appliedFilters).toEqual({
      status: ["cancelled", "failed"],
      errorCode: ["tool_failed", "worker_recovery_failed"],
    });
    expect(byState.body.items.map((r) => r.id)).toEqual([plainFailed.id]);

    const bad = async (query: string, code: string) => {
      const res = await t.client.get<ErrorBody>(`/api/v1/storage/runs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe(code);
    };
    await bad("status=done", "invalid_request");
    await bad("errorCode=oops", "invalid_request");
    await bad("recoveryState=lost", "invalid_request");
    await bad("limit=500", "invalid_request");
    await bad("createdFrom=yesterday", "invalid_request");
    await bad("colour=blue", "invalid_request");
    await bad("cursor=not-a-cursor", "invalid_cursor");
    const forged = Buffer.from(
      JSON.stringify({ v: 1, t: 1, i: "run_01KB0000000000000000000000", f: "x" }),
    ).toString("base64url");
    await bad(`cursor=${forged}`, "invalid_cursor");
    await bad(`status=failed&cursor=${encodeURIComponent(first.body.nextCursor!)}`, "invalid_cursor");
  });

  it("sums up statuses and recovery in the overview", async () => {
    const res = await t.client.get<StorageOverview>("/api/v1/storage/overview");
    expect(res.status).toBe(200);
    expect(res.body.statusCounts).toMatchObject({
      completed: expect.any(Number),
      failed: expect.any(Number),
    });
    expect(Object.keys(res.body.statusCounts).sort()).toEqual(
      ["cancelled", "completed", "failed", "queued", "running", "timed_out", "waiting_tool"].sort(),
    );
    expect(res.body.recovery).toMatchObject({
      trackedRuns: 1,
      requeuedRuns: 1,
      quarantinedRuns: 0,
      topQuarantineReasons: [],
    });
    expect(res.body.recovery.newestRecoveredAt).not.toBeNull();
  });
});

describe("client tools: wait_tool and tool results", () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi("sqlite");
  });
  afterAll(() => t?.dispose());

  it("waits in waiting_tool, keeps its session, and resumes with the posted result", async () => {
    const run = (
      await t.oah.submit("tools", {
        input: {
          steps: [
            { type: "wait_tool", name: "approve" },
            { type: "shell", command: 'echo "$OAH_TOOL_RESULTS"' },
            { type: "output", value: "done" },
          ],
        },
      })
    ).run;
    const next = (await t.oah.submit("tools", { input: { steps: [{ type: "output", value: "next" }] } })).run;
    const waiting = await t.oah.wait(run.id, { until: ["waiting_tool"] });
    expect(waiting.waitingTool).toBe("approve");
    expect((await t.oah.get(next.id)).status).toBe("queued");

    const post = (runId: string, body: unknown) =>
      t.client.post<ErrorBody>(`/api/v1/runs/${runId}/tool-results`, body);
    expect(await post(run.id, { name: "deny", output: 1 })).toMatchObject({
      status: 409,
      body: { error: { code: "tool_result_wrong_name" } },
    });
    expect(await post(next.id, { name: "approve", output: 1 })).toMatchObject({
      status: 409,
      body: { error: { code: "tool_result_not_waiting" } },
    });
    expect(await post("run_01KB0000000000000000000000", { name: "approve", output: 1 })).toMatchObject({
      status: 409,
      body: { error: { code: "tool_result_unknown_run" } },
    });
    expect((await post(run.id, { name: "approve" })).status).toBe(400);
    const accepted = await post(run.id, { name: "approve", output: { ok: true } });
    expect(accepted).toEqual({ status: 202, body: { runId: run.id, name: "approve", status: "accepted" } });

    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", output: "done", waitingTool: null });
    const steps = await t.oah.steps(run.id);
    expect(steps.map((s) => s.name)).toEqual(["approve", "shell"]);
    expect(steps[1]!.output).toMatchObject({ stdout: '{"approve":{"ok":true}}\n' });
    expect((await t.oah.listEvents(run.id)).items.map((e) => e.type)).toEqual([
      "run.queued",
      "run.started",
      "run.waiting_tool",
      "run.resumed",
      "tool.started",
      "tool.completed",
      "run.completed",
    ]);
    expect((await t.oah.wait(next.id)).output).toBe("next");
  });

  it("ends a waiting run on cancel and on its timeout", async () => {
    const cancelled = (
      await t.oah.submit("tools-cancel", { input: { steps: [{ type: "wait_tool", name: "x" }] } })
    ).run;
    const timed = (
      await t.oah.submit("tools-timeout", {
        input: { steps: [{ type: "wait_tool", name: "x" }] },
        timeoutMs: 500,
      })
    ).run;
    await t.oah.wait(cancelled.id, { until: ["waiting_tool"] });
    await t.oah.cancel(cancelled.id);
    expect((await t.oah.wait(cancelled.id)).status).toBe("cancelled");
    expect(await t.oah.wait(timed.id)).toMatchObject({
      status: "timed_out",
      errorCode: "run_timed_out",
    });
  });
});
