// @module-tag system

import type { AuditPage, Run, RunStep } from "@oah/contract";
import type { Role } from "@oah/core";
import { sleepers, waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, callAs, namedToken, startApi } from "./support";

const TOKENS: { name: string; role: Role }[] = [
  { name: "ci", role: "submitter" },
  { name: "alice", role: "operator" },
  { name: "vera", role: "viewer" },
];

/** An operator's interrupt of a run (docs/api.md): its next step boundary, with no interrupting run. */
describe("an operator's interrupt", () => {
  let t: ApiUnderTest;
  const call = <T = Record<string, unknown>>(as: string, method: string, path: string, body?: unknown) =>
    callAs<T>(t.api.url, as, method, path, body);
  const runOf = async (runId: string) =>
    (await call<{ run: Run }>("ci", "GET", `/api/v1/runs/${runId}`)).body.run;
  const submit = async (session: string, steps: unknown[]) =>
    (await call<{ run: Run }>("ci", "POST", `/api/v1/sessions/${session}/runs`, { input: { steps } })).body
      .run;

  beforeAll(async () => {
    t = await startApi("sqlite", {
      OAH_API_TOKENS: JSON.stringify(TOKENS.map((x) => ({ ...x, token: namedToken(x.name) }))),
    });
  });
  afterAll(() => t?.dispose());

  it("stops an executing run after the step it is in, ends it interrupted by an operator, and audits who asked", async () => {
    // A step that ends by itself a second on, found by its unique duration (a sandbox's pids are not ours).
    const marker = `1.${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;
    const run = await submit("interrupted-by-hand", [
      { type: "shell", command: `sleep ${marker}` },
      { type: "output", value: "never" },
    ]);
    const next = await submit("interrupted-by-hand", [{ type: "output", value: "after" }]);
    await waitFor("its first step", async () => sleepers(marker).length > 0);

    const asked = await call("alice", "POST", `/api/v1/runs/${run.id}/interrupt`, {});
    expect(asked).toMatchObject({ status: 202, body: { runId: run.id, status: "running" } });
    await waitFor("its end", async () => (await runOf(run.id)).endedAt !== null);
    expect(await runOf(run.id)).toMatchObject({
      status: "cancelled",
      errorCode: "interrupted",
      errorMessage: "interrupted by an operator",
      cancelledBy: { runId: null, reason: "interrupted" },
    });
    // The step it was in ran to its end; the next one never started.
    const steps = (await call<{ items: RunStep[] }>("ci", "GET", `/api/v1/runs/${run.id}/steps`)).body.items;
    expect(steps.map((s) => s.status)).toEqual(["completed"]);
    expect((await runOf(run.id)).output).toBeNull();
    await waitFor("the session's next run", async () => (await runOf(next.id)).status === "completed");

    const audit = await call<AuditPage>("vera", "GET", "/api/v1/audit?action=run.interrupt");
    expect(audit.body.items.map((e) => [e.actor, e.role, e.action, e.target, e.params, e.outcome])).toEqual([
      ["alice", "operator", "run.interrupt", run.id, { runId: run.id }, { ok: true }],
    ]);
  });

  it("ends a queued run at once; refuses a viewer and an unknown run", async () => {
    const holder = await submit("interrupted-queued", [{ type: "wait_tool", name: "gate" }]);
    const queued = await submit("interrupted-queued", [{ type: "output", value: "never" }]);
    await waitFor("the holder to wait", async () => (await runOf(holder.id)).status === "waiting_tool");

    expect((await call("vera", "POST", `/api/v1/runs/${queued.id}/interrupt`, {})).status).toBe(403);
    expect(
      (await call("ci", "POST", "/api/v1/runs/run_00000000000000000000000000/interrupt", {})).body,
    ).toMatchObject({ error: { code: "run_not_found" } });
    expect(await call("ci", "POST", `/api/v1/runs/${queued.id}/interrupt`, {})).toMatchObject({
      status: 202,
      body: { runId: queued.id, status: "cancelled" },
    });
    expect(await runOf(queued.id)).toMatchObject({
      status: "cancelled",
      startedAt: null,
      errorCode: "interrupted",
      errorMessage: "interrupted by an operator",
    });
  });
});
