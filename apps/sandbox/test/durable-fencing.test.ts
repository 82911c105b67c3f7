// @module-tag system

import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Run } from "@oah/contract";
import {
  createHostNetwork,
  type HostNetwork,
  type OahProcess,
  type PrivatePostgres,
  type PrivateRedis,
  type SplitDeployment,
  startPrivatePostgres,
  startPrivateRedis,
  startSplitDeployment,
  waitFor,
  waitForWorkspaceFile,
  workspaceDir,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clientOf, FAST_RECOVERY } from "./support";

/** Recovery within seconds (a liveness window of 1.2 s), one run at a time per host. */
const FAST = {
  ...FAST_RECOVERY,
  OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running",
  OAH_WORKERS_MIN: "1",
  OAH_WORKERS_MAX: "1",
};

/** The step (0-based) during which the first host is cut off or frozen. */
const CUT_AT = 2;

/**
 * Five shell steps, each marking the workspace with its number and attempt. The third, on the
 * first attempt, says it started and waits for the test's `release` (given once its host is cut
 * off or frozen), then marks its own end: the first host's step completes in the world while its
 * host can no longer say so.
 */
const markingSteps = Array.from({ length: 5 }, (_, i) => ({
  type: "shell" as const,
  command:
    i === CUT_AT
      ? `echo "step ${i} attempt $OAH_ATTEMPT resumed \${OAH_RESUMED:-0}" >> marks
if [ "$OAH_ATTEMPT" = 1 ]; then touch started; while [ ! -e release ]; do sleep 0.05; done; echo "step ${i} attempt 1 done" >> marks; fi`
      : `echo "step ${i} attempt $OAH_ATTEMPT" >> marks`,
}));

/** What the marks read once the second host resumed the run from its checkpoint after step 1. */
const EXPECTED_MARKS = [
  "step 0 attempt 1",
  "step 1 attempt 1",
  `step ${CUT_AT} attempt 1 resumed 0`,
  `step ${CUT_AT} attempt 1 done`,
  `step ${CUT_AT} attempt 2 resumed 1`,
  "step 3 attempt 2",
  "step 4 attempt 2",
  "",
].join("\n");

/**
 * Issue 34: a run's first host cut off (or frozen) in the middle of a step, its run resumed on
 * another host from its checkpoint; the first host, back, writes nothing of its attempt.
 */
describe("durable runs fenced (split mode, Redis and PostgreSQL)", () => {
  let network: HostNetwork | undefined;
  let redis: PrivateRedis | undefined;
  let postgres: PrivatePostgres | undefined;
  let d: SplitDeployment | undefined;
  let thaw: (() => void) | undefined;
  afterEach(async () => {
    thaw?.();
    await d?.dispose();
    await redis?.stop();
    await postgres?.stop();
    network?.dispose();
    d = redis = postgres = network = thaw = undefined;
  });

  const workspaceFile = (workspaceId: string, name: string) => join(workspaceDir(d!.env, workspaceId), name);

  /** Submits the marking run and waits until the first host is in its third step. */
  async function startMarkedRun(workspaceId: string): Promise<Run> {
    const { run } = await clientOf(d!).submit(workspaceId, {
      input: { steps: [...markingSteps, { type: "output", value: "done" }] },
      workspaceId,
    });
    await waitForWorkspaceFile(d!.env, workspaceId, "started");
    return run;
  }

  /** Once its host is cut off or frozen: the first host's step goes on to its end in its jail. */
  async function release(workspaceId: string) {
    writeFileSync(workspaceFile(workspaceId, "release"), "");
    await waitFor("the first host's step to end in its jail", async () =>
      readFileSync(workspaceFile(workspaceId, "marks"), "utf8").includes(`step ${CUT_AT} attempt 1 done`),
    );
  }

  /** The first host's own line that its execution of the run ended, with nothing of it written. */
  const executionEnded = (host: OahProcess, run: Run) =>
    waitFor(
      "the first host to end its execution of the run",
      async () =>
        host
          .output()
          .split("\n")
          .some(
            (line) =>
              line.includes(run.id) &&
              /execution stopped without a terminal write|its result was discarded/.test(line),
          ),
      30_000,
    );

  /**
   * The run completed by the rescuer's attempt (its worker ids contain `rescuer`) from the
   * checkpoint after step 1, and only by it.
   */
  async function expectResumedElsewhere(run: Run, workspaceId: string, rescuer: string) {
    const done = await clientOf(d!).get(run.id);
    expect(done).toMatchObject({
      status: "completed",
      output: "done",
      attempt: 2,
      recoveryState: "requeued",
    });
    expect(done.workerId).toContain(rescuer);
    expect(readFileSync(workspaceFile(workspaceId, "marks"), "utf8")).toBe(EXPECTED_MARKS);

    const events = (await clientOf(d!).listEvents(run.id)).items;
    const lifecycle = events.filter((e) => e.type.startsWith("run.")).map((e) => e.type);
    expect(lifecycle).toEqual([
      "run.queued",
      "run.started",
      "run.requeued",
      "run.queued",
      "run.started",
      "run.resumed",
      "run.completed",
    ]);
    const steps = (await clientOf(d!).steps(run.id)).filter((s) => s.kind === "tool");
    // The first host's third step was ended by recovery; its completion never reached the store.
    expect(steps.map((s) => [s.status, s.errorCode])).toEqual([
      ["completed", null],
      ["completed", null],
      ["failed", "worker_recovery_failed"],
      ["completed", null],
      ["completed", null],
      ["completed", null],
    ]);
    const resumed = events.find((e) => e.type === "run.resumed")!;
    expect(resumed.data).toMatchObject({
      fromCheckpoint: true,
      fromStep: steps[1]!.id,
      attempt: 2,
      avoided: { steps: { tool: 2 } },
      interrupted: { stepId: steps[CUT_AT]!.id, kind: "tool", onInterrupt: "rerun" },
    });
    const secondStart = Date.parse(steps[CUT_AT + 1]!.startedAt);
    // No step of the first attempt ended after the second attempt began (recovery ended the cut one).
    for (const s of steps.slice(0, CUT_AT + 1)) expect(Date.parse(s.endedAt!)).toBeLessThan(secondStart);

    // Checkpoints: two of the first attempt (after steps 0 and 1), then only the second's, on its own steps.
    const checkpoints = await clientOf(d!).checkpoints(run.id);
    expect(checkpoints.map((c) => [c.attempt, c.stepId])).toEqual([
      [1, steps[0]!.id],
      [1, steps[1]!.id],
      ...steps.slice(CUT_AT + 1).map((s) => [2, s.id]),
      // The output step has no row of its own: its checkpoint covers the last shell step.
      [2, steps.at(-1)!.id],
    ]);
  }

  it("a host cut off from Redis and PostgreSQL mid-step: another host resumes from the checkpoint, and healed, the first writes nothing", async () => {
    network = createHostNetwork();
    redis = await startPrivateRedis({ host: network.bridgeAddress });
    postgres = await startPrivatePostgres({ host: network.bridgeAddress, clients: network.subnet });
    d = await startSplitDeployment({
      sandboxes: 0,
      network,
      redisUrl: redis.url,
      databaseUrl: postgres.url,
      // Binding a namespace's address, not loopback, takes a token.
      env: { ...FAST, OAH_API_TOKEN: randomBytes(32).toString("hex") },
    });
    const cut = await d.addSandbox({ OAH_HOST_ID: "sandbox-cut" });
    const run = await startMarkedRun("partitioned");
    await d.addSandbox({ OAH_HOST_ID: "sandbox-rescuer" });
    network.cut(cut.netns!);
    thaw = () => network?.heal(cut.netns!);
    await release("partitioned");
    expect((await clientOf(d).wait(run.id, { timeoutMs: 30_000 })).status).toBe("completed");
    await expectResumedElsewhere(run, "partitioned", "sandbox-rescuer/");

    // Its step's end is still in flight: the cut host has not finished its execution of the run.
    expect(cut.output()).not.toContain(run.id);
    // Healed, the cut host's writes held up in the partition arrive, and are refused.
    network.heal(cut.netns!);
    await executionEnded(cut, run);
    await expectResumedElsewhere(run, "partitioned", "sandbox-rescuer/");
    expect(cut.child.exitCode).toBeNull();
  }, 90_000);

  it("a host frozen past its lease mid-step: another host resumes from the checkpoint, and thawed, the first writes nothing", async () => {
    d = await startSplitDeployment({ sandboxes: 1, env: FAST });
    const [frozen] = d.sandboxes;
    const run = await startMarkedRun("frozen");
    const rescuer = await d.addSandbox();
    frozen!.child.kill("SIGSTOP");
    thaw = () => frozen!.child.kill("SIGCONT");
    await release("frozen");
    expect((await clientOf(d).wait(run.id, { timeoutMs: 30_000 })).status).toBe("completed");
    await expectResumedElsewhere(run, "frozen", `-${rescuer.child.pid}-`);

    // Thawed, it finds its step's result in hand and its run gone: nothing of it is written.
    frozen!.child.kill("SIGCONT");
    await executionEnded(frozen!, run);
    await expectResumedElsewhere(run, "frozen", `-${rescuer.child.pid}-`);
    expect(frozen!.child.exitCode).toBeNull();
  }, 90_000);
});
