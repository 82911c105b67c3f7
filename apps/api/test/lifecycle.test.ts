import {
  eventTypes,
  getRun,
  isTerminal,
  sleepers,
  submit,
  uniqueSleep,
  waitFor,
  waitForRun,
} from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, BACKENDS, startApi } from "./support";

describe.each(BACKENDS)("run lifecycle on %s", (kind) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi(kind, { OAH_WORKERS_MAX: "4" });
  });
  afterAll(() => t?.dispose());

  it("cancels a queued run at once: never started, and the session's next run still runs", async () => {
    const session = `cancel-queued-${kind}`;
    const first = await submit(t.client, session, [{ type: "sleep", ms: 800 }]);
    const victim = await submit(t.client, session, [{ type: "output", value: "must not run" }]);
    const next = await submit(t.client, session, [{ type: "output", value: "after" }]);
    await waitForRun(t.client, first.id, (r) => r.status === "running");

    const res = await t.client.post<{ runId: string; status: string }>(`/api/v1/runs/${victim.id}/cancel`);
    expect(res).toEqual({ status: 202, body: { runId: victim.id, status: "cancelled" } });

    const done = await waitForRun(t.client, next.id, isTerminal);
    expect(done).toMatchObject({ status: "completed", output: "after" });
    const cancelled = await getRun(t.client, victim.id);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      startedAt: null,
      attempt: 0,
      errorCode: null,
      output: null,
    });
    expect(await eventTypes(t.client, victim.id)).toEqual(["run.queued", "run.cancelled"]);
    expect((await getRun(t.client, first.id)).status).toBe("completed");
  });

  it("cancels a running sleep within a second, then the session goes on", async () => {
    const session = `cancel-running-${kind}`;
    const run = await submit(t.client, session, [{ type: "sleep", ms: 60_000 }]);
    const next = await submit(t.client, session, [{ type: "output", value: 1 }]);
    await waitForRun(t.client, run.id, (r) => r.status === "running");

    const asked = Date.now();
    const res = await t.client.post(`/api/v1/runs/${run.id}/cancel`);
    expect(res.status).toBe(202);
    const cancelled = await waitForRun(t.client, run.id, isTerminal, 5_000);
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(cancelled).toMatchObject({ status: "cancelled", errorCode: null });
    expect(cancelled.cancelRequestedAt).not.toBeNull();
    expect(await eventTypes(t.client, run.id)).toEqual(["run.queued", "run.started", "run.cancelled"]);
    expect((await waitForRun(t.client, next.id, isTerminal)).status).toBe("completed");
    // Cancelling again changes nothing.
    expect((await t.client.post(`/api/v1/runs/${run.id}/cancel`)).body).toEqual({
      runId: run.id,
      status: "cancelled",
    });
  });

  it("times out a run whose shell step outlives it, and stops the step's processes", async () => {
    const marker = uniqueSleep();
    const run = await submit(
      t.client,
      `run-timeout-${kind}`,
      [{ type: "shell", command: `sleep ${marker} & setsid sleep ${marker} & wait` }],
      { timeoutMs: 1_000 },
    );
    await waitFor("the step's processes", async () => sleepers(marker).length === 2);
    const ended = await waitForRun(t.client, run.id, isTerminal, 10_000);
    expect(ended).toMatchObject({ status: "timed_out", errorCode: "run_timed_out" });
    expect(sleepers(marker)).toEqual([]);
    const types = await eventTypes(t.client, run.id);
    expect(types).toEqual(["run.queued", "run.started", "tool.started", "tool.failed", "run.timed_out"]);
  });

  it("fails a run on a shell step's timeout, exit code or fail step, with their codes", async () => {
    const session = `failures-${kind}`;
    const toolTimeout = await submit(t.client, session, [
      { type: "shell", command: "sleep 10", timeoutMs: 300 },
    ]);
    const exitCode = await submit(t.client, session, [
      { type: "shell", command: "echo out; echo err >&2; exit 3" },
    ]);
    const allowed = await submit(t.client, session, [
      { type: "shell", command: "exit 4", allowFailure: true },
      { type: "output", value: { went: "on" } },
    ]);
    const failStep = await submit(t.client, session, [
      { type: "fail", code: "model_failed", message: "nope" },
    ]);
    const plainFail = await submit(t.client, session, [{ type: "fail" }]);

    expect(await waitForRun(t.client, toolTimeout.id, isTerminal)).toMatchObject({
      status: "failed",
      errorCode: "tool_timed_out",
    });
    expect(await waitForRun(t.client, exitCode.id, isTerminal)).toMatchObject({
      status: "failed",
      errorCode: "tool_failed",
    });
    const steps = await t.client.get<{ items: { status: string; output: Record<string, unknown> }[] }>(
      `/api/v1/runs/${exitCode.id}/steps`,
    );
    expect(steps.body.items).toMatchObject([
      { status: "failed", output: { exitCode: 3, stdout: "out\n", stderr: "err\n" } },
    ]);
    expect(await waitForRun(t.client, allowed.id, isTerminal)).toMatchObject({
      status: "completed",
      output: { went: "on" },
    });
    expect(await waitForRun(t.client, failStep.id, isTerminal)).toMatchObject({
      status: "failed",
      errorCode: "model_failed",
      errorMessage: "nope",
    });
    expect(await waitForRun(t.client, plainFail.id, isTerminal)).toMatchObject({
      status: "failed",
      errorCode: "executor_failed",
    });
  });

  it("streams a running shell step's output into its step", async () => {
    const run = await submit(t.client, `streamed-${kind}`, [
      { type: "shell", command: "echo first; sleep 3; echo second" },
    ]);
    const partial = await waitFor("the first line in the running step", async () => {
      const steps = await t.client.get<{ items: { status: string; output: { stdout?: string } | null }[] }>(
        `/api/v1/runs/${run.id}/steps`,
      );
      const step = steps.body.items[0];
      return step?.status === "running" && step.output?.stdout === "first\n" ? step : undefined;
    });
    expect(partial.status).toBe("running");
    await waitForRun(t.client, run.id, isTerminal);
    const steps = await t.client.get<{ items: { output: { stdout: string } }[] }>(
      `/api/v1/runs/${run.id}/steps`,
    );
    expect(steps.body.items[0]!.output.stdout).toBe("first\nsecond\n");
  });

  it("bounds what a shell step keeps of its output", async () => {
    const run = await submit(t.client, `big-output-${kind}`, [
      { type: "shell", command: "yes x | tr -d '\\n' | head -c 200000" },
    ]);
    await waitForRun(t.client, run.id, isTerminal);
    const steps = await t.client.get<{ items: { output: { stdout: string; truncatedBytes: number } }[] }>(
      `/api/v1/runs/${run.id}/steps`,
    );
    const output = steps.body.items[0]!.output;
    expect(output.stdout.length).toBe(64 * 1024);
    expect(output.truncatedBytes).toBe(200_000 - 64 * 1024);
  });

  it("keeps binary output, NUL bytes included, as text", async () => {
    const run = await submit(t.client, `nul-output-${kind}`, [
      { type: "shell", command: "printf 'a\\000b'" },
    ]);
    expect(await waitForRun(t.client, run.id, isTerminal)).toMatchObject({ status: "completed" });
    const steps = await t.client.get<{ items: { output: { stdout: string } }[] }>(
      `/api/v1/runs/${run.id}/steps`,
    );
    expect(steps.body.items[0]!.output.stdout).toBe("a\uFFFDb");
  });

  it("returns the same run for a repeated idempotency key", async () => {
    const session = `idem-${kind}`;
    const a = await t.client.post<{ run: { id: string } }>(`/api/v1/sessions/${session}/runs`, {
      input: { steps: [] },
      idempotencyKey: "order-42",
    });
    const b = await t.client.post<{ run: { id: string } }>(`/api/v1/sessions/${session}/runs`, {
      input: { steps: [] },
      idempotencyKey: "order-42",
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(200);
    expect(b.body.run.id).toBe(a.body.run.id);
    await waitFor("the run to end", async () => isTerminal(await getRun(t.client, a.body.run.id)));
  });
});
