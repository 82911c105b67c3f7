// @module-tag system

import { runToExit, STORE_KINDS } from "@oah/testing";
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
    const interrupted = (await t.oah.submit(session, { input: { steps: [{ type: "sleep", ms: 60_000 }] } }))
      .run;
    const queued = [
      (await t.oah.submit(session, { input: { steps: [{ type: "output", value: 1 }] } })).run,
      (await t.oah.submit(session, { input: { steps: [{ type: "output", value: 2 }] } })).run,
    ];
    // Another session, stuck behind two busy workers: still queued when the process stops.
    const blockers = [
      (await t.oah.submit("blocker", { input: { steps: [{ type: "sleep", ms: 60_000 }] } })).run,
      (await t.oah.submit("other", { input: { steps: [{ type: "output", value: "other" }] } })).run,
    ];
    await t.oah.wait(interrupted.id, { until: ["running"] });
    await t.oah.wait(blockers[0]!.id, { until: ["running"] });
    expect((await t.oah.get(blockers[1]!.id)).status).toBe("queued");

    await stop(t);
    await t.restart();

    for (const run of [interrupted, blockers[0]!]) {
      const failed = await t.oah.wait(run.id);
      expect(failed).toMatchObject({
        status: "failed",
        errorCode: "worker_recovery_failed",
        recoveryState: "failed",
        metadata: {
          recoveryAttempts: 0,
          recovery: { state: "failed", strategy: "fail", reason: "fail_closed" },
        },
      });
      expect((await t.oah.listEvents(run.id)).items.map((e) => e.type).slice(-1)).toEqual(["run.failed"]);
    }
    const done = await Promise.all([...queued, blockers[1]!].map((r) => t!.oah.wait(r.id)));
    expect(done.map((r) => [r.status, r.output])).toEqual([
      ["completed", 1],
      ["completed", 2],
      ["completed", "other"],
    ]);
    const failedEnd = Date.parse((await t.oah.get(interrupted.id)).endedAt!);
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
    const running = (await t.oah.submit("owner", { input: { steps: [{ type: "sleep", ms: 60_000 }] } })).run;
    await t.oah.wait(running.id, { until: ["running"] });
    const second = await runToExit("oah-api", { env: t.env, args: ["--port", "0"] });
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/the run store is in use by another oah process/);
    expect((await t.oah.get(running.id)).status).toBe("running");
    await t.oah.cancel(running.id);
    expect((await t.oah.wait(running.id)).status).toBe("cancelled");
  });
});
