// @module-tag system

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { OahApiError } from "@oah/client";
import { type FakeReply, waitForWorkspaceFile, workspaceDir } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { type ApiUnderTest, apiPerTestWithModel } from "./support";

const shellCall = (id: string, command: string): FakeReply => ({
  toolCalls: [{ id, name: "shell", arguments: { command } }],
});

/** A command that says it runs, then waits until the test lets it end (a file in its workspace). */
const gatedCommand = (name: string) =>
  `touch ${name}.started; while [ ! -f ${name}.go ]; do sleep 0.02; done; echo ${name}`;

const release = (t: ApiUnderTest, workspaceId: string, name: string) =>
  writeFileSync(join(workspaceDir(t.env, workspaceId), `${name}.go`), "");

/**
 * Steering a running agent (docs/spec.md §5) on a real oah-api, commands in their jails, on the
 * embedded default (SQLite) and on Redis + PostgreSQL: messages sent while a command runs reach
 * the model once each, in order, at its next call.
 */
describe.each(["sqlite", "redis"] as const)("steering a running agent on %s", (backend) => {
  const h = apiPerTestWithModel(backend, {
    OAH_SHELL: "on",
  });
  const start = () => h.start();
  const turn = (t: ApiUnderTest, session: string, prompt: string, ifBusy?: "steer") =>
    t.oah.submit(session, {
      executor: "agent",
      input: { prompt, tools: { shell: true } },
      workspaceId: session,
      ...(ifBusy ? { ifBusy } : {}),
    });
  const userTurns = (request: number) =>
    h.model.requests[request]!.body.messages.filter((m) => m.role === "user").map((m) => m.content);

  it("a message sent while the agent's second command runs is in the third model call, exactly once, in order with a second message; 409 run_already_ended after the end", async () => {
    const t = await start();
    h.model.reply(shellCall("c1", "echo first"), shellCall("c2", gatedCommand("second")), {
      content: "done",
    });
    const { run } = await turn(t, "steer", "Run two commands.");
    await waitForWorkspaceFile(t.env, "steer", "second.started");
    const a = await t.oah.message(run.id, { content: "Also check the logs." });
    const b = await t.oah.message(run.id, { content: "And be brief." });
    expect(a).toMatchObject({ runId: run.id, status: "running" });
    expect(b.messageId).toBeGreaterThan(a.messageId);
    // Nothing reached the model yet: its second call was made before the messages.
    expect(h.model.requests).toHaveLength(2);
    release(t, "steer", "second");
    const ended = await t.oah.wait(run.id);
    expect(ended.status).toBe("completed");

    expect(h.model.requests).toHaveLength(3);
    expect(userTurns(1)).toEqual(["Run two commands."]);
    const third = h.model.requests[2]!.body.messages;
    expect(third.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
      "user",
    ]);
    expect(third.slice(-2)).toEqual([
      { role: "user", content: "Also check the logs." },
      { role: "user", content: "And be brief." },
    ]);
    expect(JSON.parse(third[4]!.content!)).toMatchObject({ exitCode: 0, stdout: "second\n" });
    // Recorded on the run, in order.
    const events = (await t.oah.listEvents(run.id, { limit: 1000 })).items.filter(
      (e) => e.type === "run.message",
    );
    expect(events.map((e) => [e.id, e.data])).toEqual([
      [a.messageId, { content: "Also check the logs." }],
      [b.messageId, { content: "And be brief." }],
    ]);

    const refused = await t.oah.message(run.id, { content: "too late" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OahApiError);
    expect(refused).toMatchObject({ status: 409, code: "run_already_ended" });
    // Audited with its run, never its content; the refused one too.
    const audit = await t.client.get<{
      items: { action: string; target: string; params: unknown; outcome: unknown }[];
    }>("/api/v1/audit?action=run.message");
    expect(audit.body.items.map((e) => [e.target, e.params, e.outcome])).toEqual([
      [run.id, { runId: run.id }, { ok: false, errorCode: "run_already_ended", message: expect.any(String) }],
      [run.id, { runId: run.id }, { ok: true }],
      [run.id, { runId: run.id }, { ok: true }],
    ]);
    // A message is a prompt: empty is refused before anything is read.
    const empty = await t.client.post(`/api/v1/runs/${run.id}/messages`, { content: "" });
    expect(empty.status).toBe(400);
  });

  it('ifBusy "steer": a submission joins the session\'s executing agent run as a message; with none executing, it is a run', async () => {
    const t = await start();
    h.model.reply(shellCall("c1", gatedCommand("first")), { content: "done" }, { content: "next" });
    const { run } = await turn(t, "steer-busy", "Run a command.");
    await waitForWorkspaceFile(t.env, "steer-busy", "first.started");
    const steered = await t.client.post("/api/v1/sessions/steer-busy/runs", {
      executor: "agent",
      input: { prompt: "Steered in.", tools: { shell: true } },
      ifBusy: "steer",
    });
    expect(steered.status).toBe(202);
    expect(steered.body).toMatchObject({
      created: false,
      run: { id: run.id },
      steered: { messageId: expect.any(Number) },
    });
    release(t, "steer-busy", "first");
    expect((await t.oah.wait(run.id)).status).toBe("completed");
    expect(userTurns(1)).toEqual(["Run a command.", "Steered in."]);
    // The session is idle: the same submission is a run of its own.
    const later = await turn(t, "steer-busy", "Later.", "steer");
    expect(later).toMatchObject({ created: true, run: { seq: 2 } });
    expect((await t.oah.wait(later.run.id)).status).toBe("completed");
    expect((await t.oah.listRuns("steer-busy")).items).toHaveLength(2);
  });
});
