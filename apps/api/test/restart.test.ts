import { eventTypes, getRun, isTerminal, runToExit, STORE_KINDS, submit, waitForRun } from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

describe.each(STORE_KINDS)("restart of oah-api on %s", (kind) => {
  let t: ApiUnderTest | undefined;
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
  });

  async function interruptedScenario(stop: (t: ApiUnderTest) => Promise<void>) {
    t = await startApi(kind, { OAH_WORKERS_MAX: "2", OAH_DRAIN_TIMEOUT_MS: "300" });
    const session = "restart";
    const interrupted = await submit(t.client, session, [{ type: "sleep", ms: 60_000 }]);
    const queued = [
      await submit(t.client, session, [{ type: "output", value: 1 }]),
      await submit(t.client, session, [{ type: "output", value: 2 }]),
    ];
    // Another session, stuck behind two busy workers: still queued when the process stops.
    const blockers = [
      await submit(t.client, "blocker", [{ type: "sleep", ms: 60_000 }]),
      await submit(t.client, "other", [{ type: "output", value: "other" }]),
    ];
    await waitForRun(t.client, interrupted.id, (r) => r.status === "running");
    await waitForRun(t.client, blockers[0]!.id, (r) => r.status === "running");
    expect((await getRun(t.client, blockers[1]!.id)).status).toBe("queued");

    await stop(t);
    await t.restart();

    for (const run of [interrupted, blockers[0]!]) {
      const failed = await waitForRun(t.client, run.id, isTerminal);
      expect(failed).toMatchObject({
        status: "failed",
        errorCode: "worker_recovery_failed",
        recoveryState: "failed",
        metadata: {
          recoveryAttempts: 0,
          recovery: { state: "failed", strategy: "fail", reason: "fail_closed" },
        },
      });
      expect((await eventTypes(t.client, run.id)).slice(-1)).toEqual(["run.failed"]);
    }
    const done = await Promise.all(
      [...queued, blockers[1]!].map((r) => waitForRun(t!.client, r.id, isTerminal)),
    );
    expect(done.map((r) => [r.status, r.output])).toEqual([
      ["completed", 1],
      ["completed", 2],
      ["completed", "other"],
    ]);
    const failedEnd = Date.parse((await getRun(t.client, interrupted.id)).endedAt!);
    expect(Date.parse(done[0]!.startedAt!)).toBeGreaterThanOrEqual(failedEnd);
  }

  it("after kill -9: queued runs complete; the interrupted run is failed by recovery", async () => {
    await interruptedScenario(async (t) => {
      expect(await t.api.stop("SIGKILL")).toBe("SIGKILL");
    });
  });

  it("after SIGTERM: drains, exits 0, fails what outlived the drain timeout; queued runs complete", async () => {
    await interruptedScenario(async (t) => {
      expect(await t.api.stop("SIGTERM")).toBe(0);
    });
  });

  it("refuses a second oah-api on the same store, before touching the first one's runs", async () => {
    t = await startApi(kind);
    const running = await submit(t.client, "owner", [{ type: "sleep", ms: 60_000 }]);
    await waitForRun(t.client, running.id, (r) => r.status === "running");
    const second = await runToExit("oah-api", { env: t.env, args: ["--port", "0"] });
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/the run store is in use by another oah process/);
    expect((await getRun(t.client, running.id)).status).toBe("running");
    await t.client.post(`/api/v1/runs/${running.id}/cancel`);
    expect((await waitForRun(t.client, running.id, isTerminal)).status).toBe("cancelled");
  });
});
