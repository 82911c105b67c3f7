// @module-tag system

import type { Run, RunEvent } from "@oah/client";
import {
  AGENT_ANSWER,
  AGENT_REPLY_USAGE,
  AGENT_SHELL_CALLS,
  agentReplies,
  agentTurn,
  type FakeModel,
  fiveShellSteps,
  IN_FLIGHT_REPLY,
  marksOf,
  readMarks,
  startFakeModel,
  waitFor,
  withoutSleep,
} from "@oah/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

/**
 * Durable runs on the embedded default (docs/spec.md §7): a run's host killed with SIGKILL in
 * the middle of it, oah-api restarted on the same SQLite store, and the run going on from its
 * last checkpoint (without Redis one process owns every run: at its start every active run is
 * stale, and recovery requeues it under requeue_running).
 */
describe("durable runs through kill -9 and a restart of oah-api on SQLite", () => {
  let model: FakeModel;
  let t: ApiUnderTest | undefined;
  beforeAll(async () => {
    model = await startFakeModel();
  });
  afterAll(() => model.close());
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
    model.requests.splice(0);
  });

  const start = async () => {
    t = await startApi("sqlite", {
      OAH_WORKERS_MIN: "2",
      OAH_WORKERS_MAX: "2",
      OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running",
      OAH_MODEL_BASE_URL: model.url,
      OAH_MODEL_NAME: "fake-1",
      OAH_MODEL_API_KEY: "sk-test-secret",
    });
    return t;
  };

  const crashAndRestart = async (t: ApiUnderTest) => {
    expect(await t.api.stop("SIGKILL")).toBe("SIGKILL");
    await t.restart();
  };

  const resumedEvents = async (t: ApiUnderTest, runId: string): Promise<RunEvent[]> =>
    (await t.oah.listEvents(runId)).items.filter((e) => e.type === "run.resumed");

  /** The lines of the host's /metrics about resumes. */
  const metricsOf = async (t: ApiUnderTest): Promise<string[]> =>
    (await (await fetch(`${t.api.url}/metrics`)).text())
      .split("\n")
      .filter((line) => /^oah_(steps_resumed|steps_rerun|model_tokens_saved)_total/.test(line));

  const messagesOf = (from: number, to?: number) =>
    model.requests.slice(from, to).map((r) => r.body.messages);

  it("an agent run killed after its third shell call goes on from its conversation: the model asked only what it had not answered, each command ran once, the answer is an uninterrupted run's", async () => {
    t = await start();
    // The same turn uninterrupted, in a session and workspace of its own: what the model is asked.
    model.reply(...agentReplies());
    const reference = await t.oah.wait(
      (await t.oah.submit("reference", { ...agentTurn(), workspaceId: "reference" })).run.id,
    );
    expect(reference).toMatchObject({ status: "completed", output: { answer: AGENT_ANSWER } });
    const asked = messagesOf(0);
    expect(asked).toHaveLength(AGENT_SHELL_CALLS + 1);

    // The fourth model call never ends: the host dies while it is in flight, its three shell
    // calls done and checkpointed.
    const replies = agentReplies();
    model.reply(...replies.slice(0, 3), IN_FLIGHT_REPLY, ...replies.slice(3));
    const run = (await t.oah.submit("crashed", { ...agentTurn(), workspaceId: "crashed" })).run;
    const first = asked.length;
    await waitFor("the fourth model call", async () => model.requests.length === first + 4);
    expect(readMarks(t.env, "crashed")).toHaveLength(3);
    await crashAndRestart(t);

    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", attempt: 2, recoveryState: "requeued" });
    // The answer and the conversation are the uninterrupted run's.
    expect(done.output).toEqual(reference.output);
    // The model was asked again only the call in flight, then the two it had not been asked.
    const crashed = messagesOf(first);
    expect(crashed).toHaveLength(AGENT_SHELL_CALLS + 2);
    expect(crashed.slice(0, 4)).toEqual(asked.slice(0, 4));
    expect(crashed.slice(4)).toEqual(asked.slice(3));
    // Each command ran once, none as a rerun.
    expect(readMarks(t.env, "crashed")).toEqual(
      Array.from({ length: AGENT_SHELL_CALLS }, (_, i) => `call-${i + 1} resumed=0`),
    );

    const steps = await t.oah.steps(run.id);
    const thirdCall = steps.filter((s) => s.kind === "tool" && s.status === "completed")[2]!;
    expect(await resumedEvents(t, run.id)).toMatchObject([
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
    // The restarted host counts what its resume saved.
    expect(await metricsOf(t)).toEqual(
      expect.arrayContaining([
        'oah_steps_resumed_total{kind="model"} 3',
        'oah_steps_resumed_total{kind="tool"} 3',
        'oah_steps_rerun_total{kind="model"} 1',
        `oah_model_tokens_saved_total ${3 * AGENT_REPLY_USAGE.total_tokens}`,
      ]),
    );
  });

  it("an agent run killed during its third shell call runs that command again, told so, and the model is asked nothing twice", async () => {
    t = await start();
    // The same commands uninterrupted: the third one does not sleep in the reference's workspace.
    await t.oah.wait(
      (await t.oah.submit("prepare", { ...withoutSleep("call-3"), workspaceId: "reference" })).run.id,
    );
    model.reply(...agentReplies(3));
    const reference = await t.oah.wait(
      (await t.oah.submit("reference", { ...agentTurn(), workspaceId: "reference" })).run.id,
    );
    expect(readMarks(t.env, "reference")).toHaveLength(AGENT_SHELL_CALLS);
    const asked = messagesOf(0);

    model.reply(...agentReplies(3));
    const run = (await t.oah.submit("rerun", { ...agentTurn(), workspaceId: "rerun" })).run;
    await waitFor("the third command", async () => marksOf(t!.env, "rerun", "call-3") === 1);
    await crashAndRestart(t);

    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", attempt: 2 });
    expect(done.output).toEqual(reference.output);
    expect(messagesOf(asked.length)).toEqual(asked);
    expect(readMarks(t.env, "rerun")).toEqual([
      "call-1 resumed=0",
      "call-2 resumed=0",
      "call-3 resumed=0",
      "call-3 resumed=1",
      "call-4 resumed=0",
      "call-5 resumed=0",
    ]);
    expect(await resumedEvents(t, run.id)).toMatchObject([
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
    t = await start();
    model.reply(...agentReplies(3));
    const run = (await t.oah.submit("no-rerun", { ...agentTurn("fail"), workspaceId: "no-rerun" })).run;
    await waitFor("the third command", async () => marksOf(t!.env, "no-rerun", "call-3") === 1);
    await crashAndRestart(t);

    expect(await t.oah.wait(run.id)).toMatchObject({
      status: "failed",
      errorCode: "step_interrupted",
      recoveryState: "quarantined",
      attempt: 1,
    });
    expect(readMarks(t.env, "no-rerun")).toEqual([
      "call-1 resumed=0",
      "call-2 resumed=0",
      "call-3 resumed=0",
    ]);
    expect(model.requests).toHaveLength(3);
  });

  it("a script of five shell steps killed during its third: steps 1–2 never run again, step 3 once more with OAH_RESUMED=1, steps 4–5 once", async () => {
    t = await start();
    const run = (await t.oah.submit("script", { ...fiveShellSteps(), workspaceId: "script" })).run;
    await waitFor("the third step", async () => marksOf(t!.env, "script", "step-3") === 1);
    await crashAndRestart(t);

    expect(await t.oah.wait(run.id)).toMatchObject({ status: "completed", attempt: 2 });
    expect(readMarks(t.env, "script")).toEqual([
      "step-1 resumed=0",
      "step-2 resumed=0",
      "step-3 resumed=0",
      "step-3 resumed=1",
      "step-4 resumed=0",
      "step-5 resumed=0",
    ]);
    const [, second] = await t.oah.steps(run.id);
    expect(await resumedEvents(t, run.id)).toMatchObject([
      {
        data: {
          fromStep: second!.id,
          attempt: 2,
          avoided: { steps: { tool: 2 }, modelTokens: 0 },
          interrupted: { kind: "tool", name: "shell", onInterrupt: "rerun" },
        },
      },
    ]);
    expect(await metricsOf(t)).toEqual(
      expect.arrayContaining([
        'oah_steps_resumed_total{kind="tool"} 2',
        'oah_steps_rerun_total{kind="tool"} 1',
      ]),
    );
  });

  it('a script whose third step has onInterrupt "fail" is quarantined with step_interrupted; a requeue goes on at step 3, a requeue fromStart runs all five again', async () => {
    t = await start();
    // Two such runs, killed together: one requeued as it is, the other from its start.
    const runs: Run[] = [];
    for (const name of ["requeued", "from-start"])
      runs.push((await t.oah.submit(name, { ...fiveShellSteps("fail"), workspaceId: name })).run);
    await waitFor("both third steps", async () =>
      ["requeued", "from-start"].every((ws) => marksOf(t!.env, ws, "step-3") === 1),
    );
    await crashAndRestart(t);

    const interruptedMarks = ["step-1 resumed=0", "step-2 resumed=0", "step-3 resumed=0"];
    for (const run of runs) {
      expect(await t.oah.wait(run.id)).toMatchObject({
        status: "failed",
        errorCode: "step_interrupted",
        recoveryState: "quarantined",
      });
      expect(readMarks(t.env, run.workspaceId)).toEqual(interruptedMarks);
    }

    await t.oah.requeue(runs[0]!.id);
    await t.oah.requeue(runs[1]!.id, { fromStart: true });
    const [requeued, fromStart] = await Promise.all(runs.map((r) => t!.oah.wait(r.id)));
    expect(requeued).toMatchObject({ status: "completed", attempt: 2 });
    expect(fromStart).toMatchObject({ status: "completed", attempt: 2 });
    expect(readMarks(t.env, "requeued")).toEqual([
      ...interruptedMarks,
      "step-3 resumed=1",
      "step-4 resumed=0",
      "step-5 resumed=0",
    ]);
    expect(readMarks(t.env, "from-start")).toEqual([
      ...interruptedMarks,
      ...Array.from({ length: 5 }, (_, i) => `step-${i + 1} resumed=0`),
    ]);
    expect(await resumedEvents(t, runs[0]!.id)).toMatchObject([{ data: { attempt: 2 } }]);
    expect(await resumedEvents(t, runs[1]!.id)).toEqual([]);
  });
});
