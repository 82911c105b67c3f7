// @module-tag system

import { isTerminal, sleepers, uniqueSleep, waitFor } from "@oah/testing";
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
    const first = (await t.oah.submit(session, { input: { steps: [{ type: "sleep", ms: 800 }] } })).run;
    const victim = (
      await t.oah.submit(session, { input: { steps: [{ type: "output", value: "must not run" }] } })
    ).run;
    const next = (await t.oah.submit(session, { input: { steps: [{ type: "output", value: "after" }] } }))
      .run;
    await t.oah.wait(first.id, { until: ["running"] });

    const res = await t.client.post<{ runId: string; status: string }>(`/api/v1/runs/${victim.id}/cancel`);
    expect(res).toEqual({ status: 202, body: { runId: victim.id, status: "cancelled" } });

    const done = await t.oah.wait(next.id);
    expect(done).toMatchObject({ status: "completed", output: "after" });
    const cancelled = await t.oah.get(victim.id);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      startedAt: null,
      attempt: 0,
      errorCode: null,
      output: null,
    });
    expect((await t.oah.listEvents(victim.id)).items.map((e) => e.type)).toEqual([
      "run.queued",
      "run.cancelled",
    ]);
    expect((await t.oah.get(first.id)).status).toBe("completed");
  });

  it("cancels a running sleep within a second, then the session goes on", async () => {
    const session = `cancel-running-${kind}`;
    const run = (await t.oah.submit(session, { input: { steps: [{ type: "sleep", ms: 60_000 }] } })).run;
    const next = (await t.oah.submit(session, { input: { steps: [{ type: "output", value: 1 }] } })).run;
    await t.oah.wait(run.id, { until: ["running"] });

    const asked = Date.now();
    const res = await t.client.post(`/api/v1/runs/${run.id}/cancel`);
    expect(res.status).toBe(202);
    const cancelled = await t.oah.wait(run.id, { timeoutMs: 5_000 });
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(cancelled).toMatchObject({ status: "cancelled", errorCode: null });
    expect(cancelled.cancelRequestedAt).not.toBeNull();
    expect((await t.oah.listEvents(run.id)).items.map((e) => e.type)).toEqual([
      "run.queued",
      "run.started",
      "run.cancelled",
    ]);
    expect((await t.oah.wait(next.id)).status).toBe("completed");
    // Cancelling again changes nothing.
    expect((await t.client.post(`/api/v1/runs/${run.id}/cancel`)).body).toEqual({
      runId: run.id,
      status: "cancelled",
    });
  });

  it("times out a run whose shell step outlives it, and stops the step's processes", async () => {
    const marker = uniqueSleep();
    const run = (
      await t.oah.submit(`run-timeout-${kind}`, {
        input: { steps: [{ type: "shell", command: `sleep ${marker} & setsid sleep ${marker} & wait` }] },
        timeoutMs: 1_000,
      })
    ).run;
    await waitFor("the step's processes", async () => sleepers(marker).length === 2);
    const ended = await t.oah.wait(run.id, { timeoutMs: 10_000 });
    expect(ended).toMatchObject({ status: "timed_out", errorCode: "run_timed_out" });
    expect(sleepers(marker)).toEqual([]);
    const types = (await t.oah.listEvents(run.id)).items.map((e) => e.type);
    expect(types).toEqual(["run.queued", "run.started", "tool.started", "tool.failed", "run.timed_out"]);
  });

  it("fails a run on a shell step's timeout, exit code or fail step, with their codes", async () => {
    const session = `failures-${kind}`;
    const toolTimeout = (
      await t.oah.submit(session, {
        input: { steps: [{ type: "shell", command: "sleep 10", timeoutMs: 300 }] },
      })
    ).run;
    const exitCode = (
      await t.oah.submit(session, {
        input: { steps: [{ type: "shell", command: "echo out; echo err >&2; exit 3" }] },
      })
    ).run;
    const allowed = (
      await t.oah.submit(session, {
        input: {
          steps: [
            { type: "shell", command: "exit 4", allowFailure: true },
            { type: "output", value: { went: "on" } },
          ],
        },
      })
    ).run;
    const failStep = (
      await t.oah.submit(session, {
        input: { steps: [{ type: "fail", code: "model_failed", message: "nope" }] },
      })
    ).run;
    const plainFail = (await t.oah.submit(session, { input: { steps: [{ type: "fail" }] } })).run;

    expect(await t.oah.wait(toolTimeout.id)).toMatchObject({
      status: "failed",
      errorCode: "tool_timed_out",
    });
    expect(await t.oah.wait(exitCode.id)).toMatchObject({
      status: "failed",
      errorCode: "tool_failed",
    });
    expect(await t.oah.steps(exitCode.id)).toMatchObject([
      { status: "failed", output: { exitCode: 3, stdout: "out\n", stderr: "err\n" } },
    ]);
    expect(await t.oah.wait(allowed.id)).toMatchObject({
      status: "completed",
      output: { went: "on" },
    });
    expect(await t.oah.wait(failStep.id)).toMatchObject({
      status: "failed",
      errorCode: "model_failed",
      errorMessage: "nope",
    });
    expect(await t.oah.wait(plainFail.id)).toMatchObject({
      status: "failed",
      errorCode: "executor_failed",
    });
  });

  it("streams a running shell step's output into its step", async () => {
    const run = (
      await t.oah.submit(`streamed-${kind}`, {
        input: { steps: [{ type: "shell", command: "echo first; sleep 3; echo second" }] },
      })
    ).run;
    const partial = await waitFor("the first line in the running step", async () => {
      const [step] = await t.oah.steps(run.id);
      const output = step?.output as { stdout?: string } | null | undefined;
      return step?.status === "running" && output?.stdout === "first\n" ? step : undefined;
    });
    expect(partial.status).toBe("running");
    await t.oah.wait(run.id);
    expect((await t.oah.steps(run.id))[0]!.output).toMatchObject({ stdout: "first\nsecond\n" });
  });

  it("bounds what a shell step keeps of its output", async () => {
    const run = (
      await t.oah.submit(`big-output-${kind}`, {
        input: { steps: [{ type: "shell", command: "yes x | tr -d '\\n' | head -c 200000" }] },
      })
    ).run;
    await t.oah.wait(run.id);
    const output = (await t.oah.steps(run.id))[0]!.output as { stdout: string; truncatedBytes: number };
    expect(output.stdout.length).toBe(64 * 1024);
    expect(output.truncatedBytes).toBe(200_000 - 64 * 1024);
  });

  it("keeps binary output, NUL bytes included, as text", async () => {
    const run = (
      await t.oah.submit(`nul-output-${kind}`, {
        input: { steps: [{ type: "shell", command: "printf 'a\\000b'" }] },
      })
    ).run;
    expect(await t.oah.wait(run.id)).toMatchObject({ status: "completed" });
    expect((await t.oah.steps(run.id))[0]!.output).toMatchObject({ stdout: "a\uFFFDb" });
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
    await waitFor("the run to end", async () => isTerminal(await t.oah.get(a.body.run.id)));
  });
});
