// @module-tag system

import type { RunEvent } from "@oah/client";
import {
  AGENT_ANSWER,
  AGENT_REPLY_USAGE,
  AGENT_SHELL_CALLS,
  agentReplies,
  agentTurn,
  type FakeModel,
  fiveShellSteps,
  hostPidOf,
  IN_FLIGHT_REPLY,
  isTerminal,
  markingCommand,
  marksOf,
  readMarks,
  type SplitDeployment,
  startFakeModel,
  startSplitDeployment,
  waitFor,
} from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clientOf, FAST_RECOVERY } from "./support";

/**
 * Durable runs in the split deployment (docs/spec.md §7): the sandbox executing a run killed
 * with SIGKILL in the middle of it, another sandbox recovering it (requeue_running) and going on
 * from its last checkpoint.
 */
describe("durable runs through kill -9 of their sandbox (Redis + PostgreSQL)", () => {
  let model: FakeModel;
  let d: SplitDeployment | undefined;
  beforeAll(async () => {
    model = await startFakeModel();
  });
  afterAll(() => model.close());
  afterEach(async () => {
    await d?.dispose();
    d = undefined;
    model.requests.splice(0);
  });

  const start = async (env: Record<string, string> = {}) => {
    d = await startSplitDeployment({
      sandboxes: 1,
      env: {
        ...FAST_RECOVERY,
        // Twice FAST_RECOVERY's lock: its step watchdog (1.2 s without a renewal) is near what a
        // loaded machine delays a renewal by, and a command it kills changes what the model is told.
        OAH_SESSION_LOCK_TTL_MS: "3000",
        OAH_STALE_RUN_AFTER_MS: "3500",
        OAH_WORKERS_MIN: "1",
        OAH_WORKERS_MAX: "1",
        OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running",
        OAH_MODEL_BASE_URL: model.url,
        OAH_MODEL_NAME: "fake-1",
        OAH_MODEL_API_KEY: "sk-test-secret",
        ...env,
      },
    });
    return d;
  };

  /** Kills the sandbox executing `runId` and starts another, which recovers the run. */
  const crashHostOf = async (d: SplitDeployment, runId: string) => {
    const pid = hostPidOf((await clientOf(d).get(runId)).workerId);
    const host = d.sandboxes.find((s) => s.child.pid === pid);
    expect(host).toBeDefined();
    expect(await host!.stop("SIGKILL")).toBe("SIGKILL");
    await d.addSandbox();
  };

  const resumedEvents = async (d: SplitDeployment, runId: string): Promise<RunEvent[]> =>
    (await clientOf(d).listEvents(runId)).items.filter((e) => e.type === "run.resumed");

  const messagesOf = (from: number) => model.requests.slice(from).map((r) => r.body.messages);

  it("an agent run killed after its third shell call goes on from its conversation on another sandbox: the model asked only what it had not answered, each command ran once, the answer is an uninterrupted run's", async () => {
    d = await start();
    const c = clientOf(d);
    model.reply(...agentReplies());
    const reference = await c.wait(
      (await c.submit("reference", { ...agentTurn(), workspaceId: "reference" })).run.id,
    );
    expect(reference).toMatchObject({ status: "completed", output: { answer: AGENT_ANSWER } });
    const asked = messagesOf(0);
    expect(asked).toHaveLength(AGENT_SHELL_CALLS + 1);

    const replies = agentReplies();
    model.reply(...replies.slice(0, 3), IN_FLIGHT_REPLY, ...replies.slice(3));
    const run = (await c.submit("crashed", { ...agentTurn(), workspaceId: "crashed" })).run;
    const first = asked.length;
    await waitFor("the fourth model call", async () => model.requests.length === first + 4);
    await crashHostOf(d, run.id);

    const done = await c.wait(run.id);
    expect(done).toMatchObject({ status: "completed", attempt: 2, recoveryState: "requeued" });
    expect(done.output).toEqual(reference.output);
    const crashed = messagesOf(first);
    expect(crashed).toHaveLength(AGENT_SHELL_CALLS + 2);
    expect(crashed.slice(0, 4)).toEqual(asked.slice(0, 4));
    expect(crashed.slice(4)).toEqual(asked.slice(3));
    expect(readMarks(d.env, "crashed")).toEqual(
      Array.from({ length: AGENT_SHELL_CALLS }, (_, i) => `call-${i + 1} resumed=0`),
    );
    const steps = await c.steps(run.id);
    const thirdCall = steps.filter((s) => s.kind === "tool" && s.status === "completed")[2]!;
    expect(await resumedEvents(d, run.id)).toMatchObject([
      {
        data: {
          fromCheckpoint: true,
          fromStep: thirdCall.id,
          attempt: 2,
          avoided: { steps: { model: 3, tool: 3 }, modelTokens: 3 * AGENT_REPLY_USAGE.total_tokens },
          interrupted: { kind: "model" },
        },
      },
    ]);
  });

  it('an agent run killed during a shell call with shellOnInterrupt "fail" is quarantined with step_interrupted; the command never runs twice', async () => {
    d = await start();
    const c = clientOf(d);
    model.reply(...agentReplies(3));
    const run = (await c.submit("no-rerun", { ...agentTurn("fail"), workspaceId: "no-rerun" })).run;
    await waitFor("the third command", async () => marksOf(d!.env, "no-rerun", "call-3") === 1);
    await crashHostOf(d, run.id);

    expect(await c.wait(run.id)).toMatchObject({
      status: "failed",
      errorCode: "step_interrupted",
      recoveryState: "quarantined",
      attempt: 1,
    });
    expect(readMarks(d.env, "no-rerun")).toEqual([
      "call-1 resumed=0",
      "call-2 resumed=0",
      "call-3 resumed=0",
    ]);
    expect(model.requests).toHaveLength(3);
  });

  it("a script of five shell steps killed during its third: steps 1–2 never run again, step 3 once more with OAH_RESUMED=1, steps 4–5 once", async () => {
    d = await start();
    const c = clientOf(d);
    const run = (await c.submit("script", { ...fiveShellSteps(), workspaceId: "script" })).run;
    await waitFor("the third step", async () => marksOf(d!.env, "script", "step-3") === 1);
    await crashHostOf(d, run.id);

    expect(await c.wait(run.id)).toMatchObject({ status: "completed", attempt: 2 });
    expect(readMarks(d.env, "script")).toEqual([
      "step-1 resumed=0",
      "step-2 resumed=0",
      "step-3 resumed=0",
      "step-3 resumed=1",
      "step-4 resumed=0",
      "step-5 resumed=0",
    ]);
  });

  it("a run held in waiting_tool (OAH_WAIT_MODE=hold) whose sandbox is killed waits again on attempt 2, nothing quarantined; its result completes it and the steps before the wait never run again", async () => {
    d = await start({ OAH_WAIT_MODE: "hold" });
    const c = clientOf(d);
    const run = (
      await c.submit("held", {
        workspaceId: "held",
        input: {
          steps: [
            { type: "shell", command: markingCommand("before-1") },
            { type: "shell", command: markingCommand("before-2") },
            { type: "wait_tool", name: "approve" },
            { type: "shell", command: markingCommand("after") },
            { type: "output", value: "approved" },
          ],
        },
      })
    ).run;
    const held = await c.wait(run.id, { until: ["waiting_tool"] });
    expect(held.metadata.parked).toBeUndefined();
    await crashHostOf(d, run.id);

    // Recovered: waiting again, or ended (as a quarantine would end it).
    const waitingAgain = await waitFor("the run recovered", async () => {
      const again = await c.get(run.id);
      return ((again.status === "waiting_tool" && again.attempt === 2) || isTerminal(again)) && again;
    });
    expect(waitingAgain).toMatchObject({
      status: "waiting_tool",
      attempt: 2,
      recoveryState: "requeued",
      waitingTool: "approve",
      metadata: { recoveryAttempts: 1, recovery: { reason: "automatic_requeue" } },
    });
    expect(waitingAgain.metadata.recovery?.deadLetter).toBeUndefined();
    const [, second] = await c.steps(run.id);
    expect(await resumedEvents(d, run.id)).toMatchObject([
      { data: { fromStep: second!.id, attempt: 2, avoided: { steps: { tool: 2 } } } },
    ]);

    await c.submitToolResult(run.id, "approve", { ok: true });
    expect(await c.wait(run.id)).toMatchObject({ status: "completed", output: "approved", attempt: 2 });
    expect(readMarks(d.env, "held")).toEqual(["before-1 resumed=0", "before-2 resumed=0", "after resumed=0"]);
  });
});
