// @module-tag system

import { createClient, type OahClient } from "@oah/client";
import type { AuditPage, Run, RunStep, StorageRunsPage } from "@oah/contract";
import type { Role } from "@oah/core";
import { type FakeModel, startFakeModel } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, callAs, namedToken, startApi } from "./support";

const TOKENS: { name: string; role: Role }[] = [
  { name: "ci", role: "submitter" },
  { name: "vera", role: "viewer" },
];

const SESSION = "forked";
const shellCall = (id: string, command: string) => ({ id, name: "shell", arguments: { command } });

/**
 * Issue 34, fork from a step: an agent run of three model replies and two shell calls, forked
 * from its second model step on the embedded default (SQLite, a real oah-api).
 */
describe("fork a run from a step", () => {
  let model: FakeModel;
  let t: ApiUnderTest;
  let ci: OahClient;
  const call = <T = Record<string, unknown>>(as: string, method: string, path: string, body?: unknown) =>
    callAs<T>(t.api.url, as, method, path, body);
  const forksOf = async (runId: string) =>
    (await call<StorageRunsPage>("vera", "GET", `/api/v1/storage/runs?forkedFrom=${runId}`)).body.items.map(
      (r) => r.id,
    );
  const sessionRuns = async () => (await ci.listRuns(SESSION)).items.map((r) => r.id);

  let source: Run;
  let sourceSteps: RunStep[];

  beforeAll(async () => {
    model = await startFakeModel();
    t = await startApi("sqlite", {
      OAH_MODEL_BASE_URL: model.url,
      OAH_MODEL_NAME: "fake-1",
      OAH_MODEL_API_KEY: "sk-test-secret",
      OAH_API_TOKENS: JSON.stringify(TOKENS.map((x) => ({ ...x, token: namedToken(x.name) }))),
    });
    ci = createClient({ baseUrl: t.api.url, token: namedToken("ci") });
    model.reply(
      { toolCalls: [shellCall("call_1", "echo one")] },
      { toolCalls: [shellCall("call_2", "echo two")] },
      { content: "one, then two" },
    );
    source = await ci.wait(
      (
        await ci.submit(SESSION, {
          executor: "agent",
          input: { prompt: "Count with the shell.", system: "You run commands.", tools: { shell: true } },
        })
      ).run.id,
    );
    sourceSteps = await ci.steps(source.id);
  });
  afterAll(async () => {
    await t?.dispose();
    await model?.close();
  });

  it("makes a new run at the session's tail, after a run queued first, that sends the model the conversation up to the step", async () => {
    expect(source).toMatchObject({ status: "completed", output: { answer: "one, then two" } });
    expect(sourceSteps.map((s) => [s.kind, s.status])).toEqual([
      ["model", "completed"],
      ["tool", "completed"],
      ["model", "completed"],
      ["tool", "completed"],
      ["model", "completed"],
    ]);
    expect(model.requests).toHaveLength(3);
    // The second model step: its call received the prompt, the first call and its shell answer.
    const fromStep = sourceSteps[2]!.id;
    const atStep = model.requests[1]!.body.messages;
    expect(atStep.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);

    // A run of the session that waits for a client tool, submitted before the fork.
    const ahead = (await ci.submit(SESSION, { input: { steps: [{ type: "wait_tool", name: "gate" }] } })).run;
    await ci.wait(ahead.id, { until: ["waiting_tool"] });

    model.reply({ content: "forked: two" });
    const forked = await call<{ run: Run; created: boolean }>(
      "ci",
      "POST",
      `/api/v1/runs/${source.id}/fork`,
      {
        fromStep,
      },
    );
    expect(forked.status).toBe(202);
    const fork = forked.body.run;
    expect(forked.body.created).toBe(true);
    expect(fork).toMatchObject({
      sessionId: SESSION,
      executor: "agent",
      input: source.input,
      workspaceId: source.workspaceId,
      forkedFrom: { runId: source.id, stepId: fromStep },
    });
    expect(fork.id).not.toBe(source.id);
    expect(fork.seq).toBeGreaterThan(ahead.seq);
    expect(await sessionRuns()).toEqual([source.id, ahead.id, fork.id]);

    await ci.submitToolResult(ahead.id, "gate", { open: true });
    const done = await ci.wait(fork.id);
    const aheadDone = await ci.get(ahead.id);
    expect(done).toMatchObject({ status: "completed", output: { answer: "forked: two" }, attempt: 1 });
    // The session's order holds: the fork starts once the run queued before it has ended.
    expect(Date.parse(done.startedAt!)).toBeGreaterThanOrEqual(Date.parse(aheadDone.endedAt!));

    // Its one model call is the source's call at that step again: the same conversation, exactly.
    expect(model.requests).toHaveLength(4);
    expect(model.requests[3]!.body.messages).toEqual(atStep);
    // It did not call the model or the shell for the steps before: its only step is that model call.
    expect((await ci.steps(fork.id)).map((s) => s.kind)).toEqual(["model"]);
    const resumed = (await ci.listEvents(fork.id)).items.find((e) => e.type === "run.resumed");
    expect(resumed?.data).toMatchObject({
      fromCheckpoint: true,
      fromStep: sourceSteps[1]!.id,
      forkedFrom: { runId: source.id, stepId: fromStep },
      avoided: { steps: { model: 1, tool: 1 } },
    });
    // Its checkpoints: the source's it went on from (attempt 0, on the source's steps), then its own.
    const ownStep = (await ci.steps(fork.id))[0]!.id;
    expect((await ci.checkpoints(fork.id)).map((c) => [c.attempt, c.stepId])).toEqual([
      [0, sourceSteps[0]!.id],
      [0, sourceSteps[1]!.id],
      [1, ownStep],
    ]);

    // The link both ways: the fork names its source and step; the source's forks list it.
    expect((await ci.get(fork.id)).forkedFrom).toEqual({ runId: source.id, stepId: fromStep });
    expect((await ci.get(source.id)).forkedFrom).toBeNull();
    expect(await forksOf(source.id)).toEqual([fork.id]);
    expect(await forksOf(fork.id)).toEqual([]);

    // Audited: who forked which run from which step.
    const audit = await call<AuditPage>("vera", "GET", "/api/v1/audit?action=run.fork");
    expect(audit.body.items.map((e) => [e.actor, e.role, e.action, e.target, e.params, e.outcome])).toEqual([
      ["ci", "submitter", "run.fork", source.id, { runId: source.id, fromStep }, { ok: true }],
    ]);
  });

  it("forked from a shell call, runs that command again, then sends the model what the source's next call received", async () => {
    const fromStep = sourceSteps[3]!.id;
    const after = model.requests[2]!.body.messages;
    model.reply({ content: "forked at the shell" });
    const fork = (await ci.fork(source.id, { fromStep })).run;
    expect(await ci.wait(fork.id)).toMatchObject({
      status: "completed",
      output: { answer: "forked at the shell" },
    });
    const steps = await ci.steps(fork.id);
    expect(steps.map((s) => [s.kind, (s.output as { command?: string }).command ?? null])).toEqual([
      ["tool", "echo two"],
      ["model", null],
    ]);
    // The same conversation, the shell's answer being this run's own (its duration differs).
    const sent = model.requests.at(-1)!.body.messages;
    expect(sent.slice(0, -1)).toEqual(after.slice(0, -1));
    expect(sent.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_2" });
    expect(JSON.parse(sent.at(-1)!.content!)).toMatchObject({ exitCode: 0, stdout: "two\n" });
    expect(await forksOf(source.id)).toContain(fork.id);
  });

  it("forked from its first step, sends the model the source's first call again, not a later run's conversation", async () => {
    // Agent runs of the session have completed after the source (the forks above): the fork's
    // turn is the source's, so it goes on from what the source went on from (nothing here).
    const first = model.requests[0]!.body.messages;
    model.reply({ content: "forked at the start" });
    const fork = (await ci.fork(source.id, { fromStep: sourceSteps[0]!.id })).run;
    expect(await ci.wait(fork.id)).toMatchObject({
      status: "completed",
      output: { answer: "forked at the start" },
    });
    expect(model.requests.at(-1)!.body.messages).toEqual(first);
  });

  it("refuses an unknown run, an unknown step, a viewer and bad input, and makes nothing", async () => {
    const before = await sessionRuns();
    const forks = await forksOf(source.id);
    const requests = model.requests.length;
    const fork = (as: string, runId: string, body: unknown) =>
      call<{ error: { code: string } }>(as, "POST", `/api/v1/runs/${runId}/fork`, body);
    const refusals = [
      [await fork("ci", "run_00000000000000000000000000", { fromStep: 1 }), 404, "run_not_found"],
      [await fork("ci", source.id, { fromStep: 999_999 }), 404, "step_not_found"],
      [await fork("vera", source.id, { fromStep: sourceSteps[0]!.id }), 403, "forbidden"],
      [await fork("ci", source.id, {}), 400, "invalid_request"],
      [await fork("ci", source.id, { fromStep: 0 }), 400, "invalid_request"],
      [await fork("ci", source.id, { fromStep: "2" }), 400, "invalid_request"],
      [await fork("ci", source.id, { fromStep: 2, extra: true }), 400, "invalid_request"],
    ] as const;
    expect(refusals.map(([answer]) => [answer.status, answer.body.error?.code])).toEqual(
      refusals.map(([, status, code]) => [status, code]),
    );
    expect(await sessionRuns()).toEqual(before);
    expect(await forksOf(source.id)).toEqual(forks);
    expect(model.requests).toHaveLength(requests);

    // Each refusal is in the audit log, newest first, with who asked and why.
    const audit = await call<AuditPage>("vera", "GET", "/api/v1/audit?action=run.fork&limit=50");
    const latest = audit.body.items.slice(0, refusals.length);
    expect(latest.map((e) => [e.actor, e.outcome.ok ? "ok" : e.outcome.errorCode])).toEqual(
      refusals.map(([, , code], i) => [i === 2 ? "vera" : "ci", code]).reverse(),
    );
    expect(latest.at(-1)!.params).toEqual({ runId: "run_00000000000000000000000000", fromStep: 1 });
  });
});
