import {
  AGENT_ANSWER,
  AGENT_REPLY_USAGE,
  AGENT_SHELL_CALLS,
  agentReplies,
  agentTurn,
  type FakeModel,
  fiveShellSteps,
  IN_FLIGHT_REPLY,
  isTerminal,
  markingCommand,
  marksOf,
  readMarks,
  startFakeModel,
  waitFor,
  withoutSleep,
} from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { OahClient, Run, RunEvent } from "../src";

/**
 * A deployment the durable-run contract runs on: real oah processes on a real store, seen
 * through its HTTP API, whose executing host the test kills with SIGKILL.
 */
export interface DurableDeployment {
  /** The API as it is now: a recovery may start another process (another address) behind it. */
  readonly oah: OahClient;
  /** The environment its processes share (OAH_DATA_DIR holds the workspaces and their marks). */
  readonly env: Record<string, string>;
  /**
   * Kills with SIGKILL every host executing one of `runIds` (asserting that SIGKILL ended
   * it), then brings what recovers their runs on this deployment.
   */
  crash(...runIds: string[]): Promise<void>;
  /** The /metrics of the host that took over the runs of the last crash (its counters are its own). */
  metrics(): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * Starts the deployment with `env` over its own, which names the model stand-in, the stale-run
 * strategy and anything a test needs (OAH_WAIT_MODE).
 */
export type StartDurableDeployment = (env: Record<string, string>) => Promise<DurableDeployment>;

/**
 * Durable runs (docs/spec.md §7), one suite body for every deployment: a run's host killed with
 * SIGKILL in the middle of it, and the run going on from its last checkpoint on whatever the
 * deployment recovers it with; what the model stand-in was asked, the marks each command left
 * in its workspace, the run's answer and its `run.resumed` say what ran again.
 */
export function durableRunsContract(name: string, start: StartDurableDeployment): void {
  describe(`durable runs: ${name}`, () => {
    let model: FakeModel;
    let deployed: DurableDeployment | undefined;
    beforeAll(async () => {
      model = await startFakeModel();
    });
    afterAll(() => model.close());
    afterEach(async () => {
      await deployed?.dispose();
      deployed = undefined;
      model.requests.splice(0);
    });

    const deploy = async (env: Record<string, string> = {}) => {
      deployed = await start({
        // Two slots: the quarantine test kills a host executing two runs at once.
        OAH_WORKERS_MIN: "2",
        OAH_WORKERS_MAX: "2",
        OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running",
        OAH_MODEL_BASE_URL: model.url,
        OAH_MODEL_NAME: "fake-1",
        OAH_MODEL_API_KEY: "sk-test-secret",
        ...env,
      });
      return deployed;
    };

    const resumedEvents = async (d: DurableDeployment, runId: string): Promise<RunEvent[]> =>
      (await d.oah.listEvents(runId)).items.filter((e) => e.type === "run.resumed");

    /** The lines of the recovering host's /metrics about resumes. */
    const metricsOf = async (d: DurableDeployment): Promise<string[]> =>
      (await d.metrics())
        .split("\n")
        .filter((line) => /^oah_(steps_resumed|steps_rerun|model_tokens_saved)_total/.test(line));

    const messagesOf = (from: number) => model.requests.slice(from).map((r) => r.body.messages);

    it("an agent run killed after its third shell call goes on from its conversation: the model asked only what it had not answered, each command ran once, the answer is an uninterrupted run's", async () => {
      const d = await deploy();
      // The same turn uninterrupted, in a session and workspace of its own: what the model is asked.
      model.reply(...agentReplies());
      const reference = await d.oah.wait(
        (await d.oah.submit("reference", { ...agentTurn(), workspaceId: "reference" })).run.id,
      );
      expect(reference).toMatchObject({ status: "completed", output: { answer: AGENT_ANSWER } });
      const asked = messagesOf(0);
      expect(asked).toHaveLength(AGENT_SHELL_CALLS + 1);

      // The fourth model call never ends: the host dies while it is in flight, its three shell
      // calls done and checkpointed.
      const replies = agentReplies();
      model.reply(...replies.slice(0, 3), IN_FLIGHT_REPLY, ...replies.slice(3));
      const run = (await d.oah.submit("crashed", { ...agentTurn(), workspaceId: "crashed" })).run;
      const first = asked.length;
      await waitFor("the fourth model call", async () => model.requests.length === first + 4);
      expect(readMarks(d.env, "crashed")).toHaveLength(3);
      await d.crash(run.id);

      const done = await d.oah.wait(run.id);
      expect(done).toMatchObject({ status: "completed", attempt: 2, recoveryState: "requeued" });
      // The answer and the conversation are the uninterrupted run's.
      expect(done.output).toEqual(reference.output);
      // The model was asked again only the call in flight, then the two it had not been asked.
      const crashed = messagesOf(first);
      expect(crashed).toHaveLength(AGENT_SHELL_CALLS + 2);
      expect(crashed.slice(0, 4)).toEqual(asked.slice(0, 4));
      expect(crashed.slice(4)).toEqual(asked.slice(3));
      // Each command ran once, none as a rerun.
      expect(readMarks(d.env, "crashed")).toEqual(
        Array.from({ length: AGENT_SHELL_CALLS }, (_, i) => `call-${i + 1} resumed=0`),
      );

      const steps = await d.oah.steps(run.id);
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
      // The recovering host counts what its resume saved.
      expect(await metricsOf(d)).toEqual(
        expect.arrayContaining([
          'oah_steps_resumed_total{kind="model"} 3',
          'oah_steps_resumed_total{kind="tool"} 3',
          'oah_steps_rerun_total{kind="model"} 1',
          `oah_model_tokens_saved_total ${3 * AGENT_REPLY_USAGE.total_tokens}`,
        ]),
      );
    });

    it("an agent run killed during its third shell call runs that command again, told so, and the model is asked nothing twice", async () => {
      const d = await deploy();
      // The same commands uninterrupted: the third one does not sleep in the reference's workspace.
      await d.oah.wait(
        (await d.oah.submit("prepare", { ...withoutSleep("call-3"), workspaceId: "reference" })).run.id,
      );
      model.reply(...agentReplies(3));
      const reference = await d.oah.wait(
        (await d.oah.submit("reference", { ...agentTurn(), workspaceId: "reference" })).run.id,
      );
      expect(readMarks(d.env, "reference")).toHaveLength(AGENT_SHELL_CALLS);
      const asked = messagesOf(0);

      model.reply(...agentReplies(3));
      const run = (await d.oah.submit("rerun", { ...agentTurn(), workspaceId: "rerun" })).run;
      await waitFor("the third command", async () => marksOf(d.env, "rerun", "call-3") === 1);
      await d.crash(run.id);

      const done = await d.oah.wait(run.id);
      expect(done).toMatchObject({ status: "completed", attempt: 2 });
      expect(done.output).toEqual(reference.output);
      expect(messagesOf(asked.length)).toEqual(asked);
      expect(readMarks(d.env, "rerun")).toEqual([
        "call-1 resumed=0",
        "call-2 resumed=0",
        "call-3 resumed=0",
        "call-3 resumed=1",
        "call-4 resumed=0",
        "call-5 resumed=0",
      ]);
      expect(await resumedEvents(d, run.id)).toMatchObject([
        {
          data: {
            attempt: 2,
            avoided: { steps: { model: 3, tool: 2 } },
            interrupted: { kind: "tool", name: "shell", onInterrupt: "rerun" },
          },
        },
      ]);
    });

    it('an agent run killed during a shell call with shellOnInterrupt "fail" is quarantined with step_interrupted; the command never runs twice', async () => {
      const d = await deploy();
      model.reply(...agentReplies(3));
      const run = (await d.oah.submit("no-rerun", { ...agentTurn("fail"), workspaceId: "no-rerun" })).run;
      await waitFor("the third command", async () => marksOf(d.env, "no-rerun", "call-3") === 1);
      await d.crash(run.id);

      expect(await d.oah.wait(run.id)).toMatchObject({
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
      const d = await deploy();
      const run = (await d.oah.submit("script", { ...fiveShellSteps(), workspaceId: "script" })).run;
      await waitFor("the third step", async () => marksOf(d.env, "script", "step-3") === 1);
      await d.crash(run.id);

      expect(await d.oah.wait(run.id)).toMatchObject({ status: "completed", attempt: 2 });
      expect(readMarks(d.env, "script")).toEqual([
        "step-1 resumed=0",
        "step-2 resumed=0",
        "step-3 resumed=0",
        "step-3 resumed=1",
        "step-4 resumed=0",
        "step-5 resumed=0",
      ]);
      const [, second] = await d.oah.steps(run.id);
      expect(await resumedEvents(d, run.id)).toMatchObject([
        {
          data: {
            fromStep: second!.id,
            attempt: 2,
            avoided: { steps: { tool: 2 }, modelTokens: 0 },
            interrupted: { kind: "tool", name: "shell", onInterrupt: "rerun" },
          },
        },
      ]);
      expect(await metricsOf(d)).toEqual(
        expect.arrayContaining([
          'oah_steps_resumed_total{kind="tool"} 2',
          'oah_steps_rerun_total{kind="tool"} 1',
        ]),
      );
    });

    it('a script whose third step has onInterrupt "fail" is quarantined with step_interrupted; a requeue goes on at step 3, a requeue fromStart runs all five again', async () => {
      const d = await deploy();
      // Two such runs, killed together: one requeued as it is, the other from its start.
      const runs: Run[] = [];
      for (const name of ["requeued", "from-start"])
        runs.push((await d.oah.submit(name, { ...fiveShellSteps("fail"), workspaceId: name })).run);
      await waitFor("both third steps", async () =>
        ["requeued", "from-start"].every((ws) => marksOf(d.env, ws, "step-3") === 1),
      );
      await d.crash(...runs.map((r) => r.id));

      const interruptedMarks = ["step-1 resumed=0", "step-2 resumed=0", "step-3 resumed=0"];
      for (const run of runs) {
        expect(await d.oah.wait(run.id)).toMatchObject({
          status: "failed",
          errorCode: "step_interrupted",
          recoveryState: "quarantined",
        });
        expect(readMarks(d.env, run.workspaceId)).toEqual(interruptedMarks);
      }

      await d.oah.requeue(runs[0]!.id);
      await d.oah.requeue(runs[1]!.id, { fromStart: true });
      const [requeued, fromStart] = await Promise.all(runs.map((r) => d.oah.wait(r.id)));
      expect(requeued).toMatchObject({ status: "completed", attempt: 2 });
      expect(fromStart).toMatchObject({ status: "completed", attempt: 2 });
      expect(readMarks(d.env, "requeued")).toEqual([
        ...interruptedMarks,
        "step-3 resumed=1",
        "step-4 resumed=0",
        "step-5 resumed=0",
      ]);
      expect(readMarks(d.env, "from-start")).toEqual([
        ...interruptedMarks,
        ...Array.from({ length: 5 }, (_, i) => `step-${i + 1} resumed=0`),
      ]);
      expect(await resumedEvents(d, runs[0]!.id)).toMatchObject([{ data: { attempt: 2 } }]);
      expect(await resumedEvents(d, runs[1]!.id)).toEqual([]);
    });

    it("a run held in waiting_tool (OAH_WAIT_MODE=hold) whose host is killed waits again on attempt 2, nothing quarantined; its result completes it and the steps before the wait never run again", async () => {
      const d = await deploy({ OAH_WAIT_MODE: "hold" });
      const run = (
        await d.oah.submit("held", {
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
      const held = await d.oah.wait(run.id, { until: ["waiting_tool"] });
      expect(held.metadata.parked).toBeUndefined();
      await d.crash(run.id);

      // Recovered: waiting again, or ended (as a quarantine would end it).
      const waitingAgain = await waitFor("the run recovered", async () => {
        const again = await d.oah.get(run.id);
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
      const [, second] = await d.oah.steps(run.id);
      expect(await resumedEvents(d, run.id)).toMatchObject([
        { data: { fromStep: second!.id, attempt: 2, avoided: { steps: { tool: 2 } } } },
      ]);

      await d.oah.submitToolResult(run.id, "approve", { ok: true });
      expect(await d.oah.wait(run.id)).toMatchObject({ status: "completed", output: "approved", attempt: 2 });
      expect(readMarks(d.env, "held")).toEqual([
        "before-1 resumed=0",
        "before-2 resumed=0",
        "after resumed=0",
      ]);
    });
  });
}
