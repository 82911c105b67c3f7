// @module-tag system

import { type FakeModel, sleepers, startFakeModel, uniqueSleep, waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

/** A run's steps, with their outputs as the shell and model steps leave them. */
async function steps(t: ApiUnderTest, runId: string) {
  return (await t.oah.steps(runId)).map((s) => ({ ...s, output: s.output as Record<string, unknown> }));
}

describe("executors: shell, model, agent, hooks", () => {
  let model: FakeModel;
  let t: ApiUnderTest;

  beforeAll(async () => {
    model = await startFakeModel();
    t = await startApi("sqlite", {
      OAH_MODEL_BASE_URL: model.url,
      OAH_MODEL_NAME: "fake-1",
      OAH_MODEL_API_KEY: "sk-test-secret",
      OAH_MODEL_TIMEOUT_MS: "700",
      OAH_HOOKS: JSON.stringify([
        {
          name: "slow start",
          on: "run.started",
          command: "case $OAH_SESSION_ID in hooks*) sleep 30;; esac",
          timeoutMs: 300,
        },
        { name: "audit", on: "tool.after", command: "case $OAH_SESSION_ID in hooks*) exit 1;; esac" },
      ]),
    });
  });
  afterAll(async () => {
    await t?.dispose();
    await model?.close();
  });

  it("cancels a shell step that started a grandchild within 2 s, and leaves no process of it behind", async () => {
    const marker = uniqueSleep();
    const run = (
      await t.oah.submit("grandchild", {
        input: { steps: [{ type: "shell", command: `sh -c 'sleep ${marker} & sleep ${marker}'` }] },
        workspaceId: "grandchild",
      })
    ).run;
    await waitFor("the step's processes", async () => sleepers(marker).length === 2);
    const asked = Date.now();
    await t.oah.cancel(run.id);
    const ended = await t.oah.wait(run.id, { timeoutMs: 5_000 });
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(ended.status).toBe("cancelled");
    expect(sleepers(marker)).toEqual([]);
  });

  it("answers a model step from the model, with token counts in its events, and the key sent", async () => {
    model.reply({
      content: "Hello from the model",
      usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
    });
    const run = (
      await t.oah.submit("model-step", {
        input: { steps: [{ type: "model", prompt: "Say hello", system: "be brief" }] },
      })
    ).run;
    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", output: "Hello from the model" });
    const request = model.requests.at(-1)!;
    expect(request.body).toMatchObject({
      model: "fake-1",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "Say hello" },
      ],
    });
    expect(request.headers.authorization).toBe("Bearer sk-test-secret");
    const completed = (await t.oah.listEvents(run.id)).items.find((e) => e.type === "model.completed")!;
    expect(completed.data).toMatchObject({
      promptTokens: 11,
      completionTokens: 5,
      totalTokens: 16,
      finishReason: "stop",
    });
  });

  it("fails a model call that stalls with model_timed_out", async () => {
    model.reply({ content: "never finished", stall: true });
    const run = (await t.oah.submit("model-stall", { input: { steps: [{ type: "model", prompt: "slow" }] } }))
      .run;
    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "failed", errorCode: "model_timed_out" });
    expect((await t.oah.listEvents(run.id)).items.map((e) => e.type)).toEqual([
      "run.queued",
      "run.started",
      "model.started",
      "model.failed",
      "run.failed",
    ]);
  });

  it("fails a model call the endpoint refuses with model_failed", async () => {
    model.reply({ status: 500 });
    const run = (await t.oah.submit("model-500", { input: { steps: [{ type: "model", prompt: "x" }] } })).run;
    expect(await t.oah.wait(run.id)).toMatchObject({
      status: "failed",
      errorCode: "model_failed",
    });
  });

  it("closes the model's HTTP request when the run is cancelled mid-stream", async () => {
    model.reply({ content: "streaming forever", stall: true });
    const run = (
      await t.oah.submit("model-cancel", {
        input: { steps: [{ type: "model", prompt: "x" }] },
        timeoutMs: 60_000,
      })
    ).run;
    await waitFor("the model call", async () =>
      (await t.oah.listEvents(run.id)).items.map((e) => e.type).includes("model.started"),
    );
    const request = model.requests.at(-1)!;
    await t.oah.cancel(run.id);
    expect((await t.oah.wait(run.id, { timeoutMs: 5_000 })).status).toBe("cancelled");
    await request.closedEarly;
  });

  it("runs an agent turn that calls the shell tool and answers; the next turn carries the conversation", async () => {
    model.reply(
      { toolCalls: [{ id: "call_1", name: "shell", arguments: { command: "echo from-the-shell" } }] },
      {
        content: "The shell said from-the-shell",
        usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
      },
    );
    const first = (await t.oah.submit("agent-1", { input: { steps: [] } })).run;
    await t.oah.wait(first.id);
    const run = (
      await t.oah.submit("agent-1", {
        executor: "agent",
        input: { prompt: "What does the shell say?", system: "You run commands.", tools: { shell: true } },
      })
    ).run;
    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", output: { answer: "The shell said from-the-shell" } });
    const second = model.requests.at(-1)!.body;
    expect(second.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(JSON.parse(second.messages.at(-1)!.content!)).toMatchObject({
      exitCode: 0,
      stdout: "from-the-shell\n",
    });
    expect(model.requests.at(-2)!.body.tools).toMatchObject([
      { type: "function", function: { name: "shell" } },
    ]);
    expect((await t.oah.listEvents(run.id)).items.map((e) => e.type)).toEqual([
      "run.queued",
      "run.started",
      "model.started",
      "model.completed",
      "tool.started",
      "tool.completed",
      "model.started",
      "model.completed",
      "run.completed",
    ]);

    model.reply({ content: "Still here." });
    const next = (
      await t.oah.submit("agent-1", {
        executor: "agent",
        input: { prompt: "And now?" },
      })
    ).run;
    expect((await t.oah.wait(next.id)).status).toBe("completed");
    const history = model.requests.at(-1)!.body.messages.map((m) => [m.role, m.content]);
    expect(history).toEqual([
      ["system", "You run commands."],
      ["user", "What does the shell say?"],
      ["assistant", null],
      ["tool", expect.stringContaining("from-the-shell")],
      ["assistant", "The shell said from-the-shell"],
      ["user", "And now?"],
    ]);
  });

  it("puts an agent run into waiting_tool for a client tool until its result is posted", async () => {
    model.reply(
      { toolCalls: [{ id: "call_9", name: "approve", arguments: { amount: 42 } }] },
      { content: "Approved, thanks." },
    );
    const run = (
      await t.oah.submit("agent-client", {
        executor: "agent",
        input: { prompt: "Pay 42", tools: { client: [{ name: "approve", description: "Ask the user" }] } },
      })
    ).run;
    const waiting = await t.oah.wait(run.id, { until: ["waiting_tool"] });
    expect(waiting.waitingTool).toBe("approve");
    expect(await t.oah.submitToolResult(run.id, "approve", { ok: true })).toMatchObject({
      status: "accepted",
    });
    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", output: { answer: "Approved, thanks." } });
    const toolMessage = model.requests.at(-1)!.body.messages.at(-1)!;
    expect(toolMessage).toMatchObject({ role: "tool", content: '{"ok":true}' });
  });

  it("records a hook that hangs as a notice after its timeout, and the run still completes", async () => {
    const run = (
      await t.oah.submit("hooks-1", {
        input: {
          steps: [
            { type: "hook", command: "exit 3" },
            { type: "shell", command: "true" },
            { type: "output", value: "went on" },
          ],
        },
      })
    ).run;
    const done = await t.oah.wait(run.id);
    expect(done).toMatchObject({ status: "completed", output: "went on" });
    const notices = (await t.oah.listEvents(run.id)).items.filter((e) => e.type === "hook.notice");
    expect(notices.map((n) => n.data)).toEqual([
      expect.objectContaining({
        hook: "slow start",
        event: "run.started",
        errorCode: "hook_execution_failed",
      }),
      expect.objectContaining({ hook: "step 0", event: "script", errorCode: "hook_execution_failed" }),
      expect.objectContaining({ hook: "audit", event: "tool.after", errorCode: "hook_execution_failed" }),
    ]);
    expect(notices[0]!.data!.message).toMatch(/within 300 ms/);
    const hookSteps = (await steps(t, run.id)).filter((s) => s.kind === "hook");
    expect(hookSteps.map((s) => [s.name, s.status, s.errorCode])).toEqual([
      ["slow start", "failed", "hook_execution_failed"],
      ["step 0", "failed", "hook_execution_failed"],
      ["audit", "failed", "hook_execution_failed"],
    ]);
    expect((await t.oah.get(run.id)).errorCode).toBeNull();
  });
});
