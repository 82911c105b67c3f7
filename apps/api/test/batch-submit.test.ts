// @module-tag system

import type { Run, SubmitManyResult } from "@oah/contract";
import { isTerminal, waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, BACKENDS, startApi } from "./support";

const ms = (iso: string | null) => Date.parse(iso ?? "");
const sleepRun = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  sessionId,
  input: { steps: [{ type: "sleep", ms: 5 }] },
  ...extra,
});

describe.each(BACKENDS)("batched submission on %s", (kind) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi(kind, { OAH_WORKERS_MAX: "4" });
  });
  afterAll(() => t?.dispose());

  it("executes each session's runs of a batch in the order given, and answers a repeated key with its run", async () => {
    const sessions = [0, 1, 2].map((i) => `batch-${kind}-${i}`);
    const runs: ReturnType<typeof sleepRun>[] = [];
    for (let r = 0; r < 5; r++) for (const s of sessions) runs.push(sleepRun(s));
    runs.push(
      sleepRun(sessions[0]!, { idempotencyKey: "once" }),
      sleepRun(sessions[0]!, { idempotencyKey: "once" }),
    );
    const res = await t.client.post<SubmitManyResult>("/api/v1/runs/batch", { runs });
    expect(res.status).toBe(202);
    const items = res.body.items as { run: Run; created: boolean }[];
    expect(items).toHaveLength(17);
    expect(items[16]!).toMatchObject({ created: false, run: { id: items[15]!.run.id } });

    const finished = await waitFor(
      "every run to end",
      async () => {
        const all = await Promise.all(sessions.map((s) => t.oah.listRuns(s).then((p) => p.items)));
        return all.every((list) => list.every(isTerminal)) && all;
      },
      60_000,
      100,
    );
    finished.forEach((list, i) => {
      const expected = items
        .filter((it, k) => it.created && runs[k]!.sessionId === sessions[i])
        .map((it) => it.run.id);
      expect(list.map((r) => r.id)).toEqual(expected);
      expect(list.map((r) => r.status)).toEqual(expected.map(() => "completed"));
      for (let k = 1; k < list.length; k++)
        expect(ms(list[k]!.startedAt)).toBeGreaterThanOrEqual(ms(list[k - 1]!.endedAt));
    });
    // Submitted again, the same keyed run is all there is: 200, nothing made.
    const again = await t.client.post<SubmitManyResult>("/api/v1/runs/batch", {
      runs: [sleepRun(sessions[0]!, { idempotencyKey: "once" })],
    });
    expect(again.status).toBe(200);
    expect(again.body.items[0]).toMatchObject({ created: false, run: { id: items[15]!.run.id } });
  });

  it("refuses a batch whole, writing nothing, for a malformed item or a key reused with another body; partial answers item by item", async () => {
    const session = `batch-refused-${kind}`;
    const malformed = await t.client.post<{
      error: { code: string; issues: { path: (string | number)[] }[] };
    }>("/api/v1/runs/batch", {
      runs: [sleepRun(session), { sessionId: session, input: { steps: [{ type: "nope" }] } }],
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_request");
    expect(malformed.body.error.issues[0]!.path).toMatch(/^runs\.1\./);
    expect((await t.client.post("/api/v1/runs/batch", { runs: [] })).status).toBe(400);
    const tooMany = Array.from({ length: 1_001 }, () => sleepRun(session));
    expect((await t.client.post("/api/v1/runs/batch", { runs: tooMany })).status).toBe(400);

    await t.oah.submit(session, { input: { steps: [{ type: "sleep", ms: 5 }] }, idempotencyKey: "k" });
    const other = { input: { steps: [{ type: "sleep", ms: 6 }] }, idempotencyKey: "k" };
    const conflict = await t.client.post<{ error: { code: string; message: string } }>("/api/v1/runs/batch", {
      runs: [sleepRun(`${session}-new`), { sessionId: session, ...other }],
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: "idempotency_key_conflict" });
    expect(conflict.body.error.message).toContain("runs[1]");
    expect((await t.oah.listRuns(`${session}-new`)).items).toEqual([]);
    expect((await t.oah.listRuns(session)).items).toHaveLength(1);

    const partial = await t.client.post<SubmitManyResult>("/api/v1/runs/batch", {
      partial: true,
      runs: [sleepRun(`${session}-new`), { sessionId: session, ...other }],
    });
    expect(partial.status).toBe(202);
    expect(partial.body.items[0]).toMatchObject({
      created: true,
      run: { sessionId: `${session}-new`, seq: 1 },
    });
    expect(partial.body.items[1]).toMatchObject({ error: { code: "idempotency_key_conflict" } });
  });

  it("keeps a session in the workspace of its first run: a submission naming another is refused with 409, nothing written", async () => {
    const session = `ws-bound-${kind}`;
    const inB = { sessionId: session, workspaceId: "team-b", input: { steps: [{ type: "sleep", ms: 5 }] } };
    const first = await t.client.post<{ run: Run }>(`/api/v1/sessions/${session}/runs`, {
      workspaceId: "team-a",
      input: { steps: [{ type: "sleep", ms: 5 }] },
    });
    expect(first.status).toBe(202);
    const refusals = await Promise.all([
      t.client.post<{ error: { code: string } }>(`/api/v1/sessions/${session}/runs`, {
        workspaceId: "team-b",
        input: inB.input,
      }),
      t.client.post<{ error: { code: string } }>("/trpc/runs.submit", inB),
      t.client.post<{ error: { code: string; message: string } }>("/api/v1/runs/batch", {
        runs: [sleepRun(`${session}-other`), inB],
      }),
    ]);
    expect(refusals.map((r) => r.status)).toEqual([409, 409, 409]);
    expect(refusals[0]!.body.error.code).toBe("session_workspace_mismatch");
    expect(JSON.stringify(refusals[1]!.body)).toContain("session_workspace_mismatch");
    expect(refusals[2]!.body.error).toMatchObject({
      code: "session_workspace_mismatch",
      message: expect.stringContaining("runs[1]"),
    });
    expect((await t.oah.listRuns(`${session}-other`)).items).toEqual([]);
    const partial = await t.client.post<SubmitManyResult>("/api/v1/runs/batch", {
      partial: true,
      runs: [inB, { ...inB, workspaceId: "team-a" }],
    });
    expect(partial.status).toBe(202);
    expect(partial.body.items[0]).toMatchObject({ error: { code: "session_workspace_mismatch" } });
    expect(partial.body.items[1]).toMatchObject({ created: true, run: { workspaceId: "team-a", seq: 2 } });
    // A submission naming no workspace joins the session's.
    const unnamed = await t.client.post<{ run: Run }>(`/api/v1/sessions/${session}/runs`, {
      input: inB.input,
    });
    expect(unnamed.status).toBe(202);
    expect(unnamed.body.run).toMatchObject({ workspaceId: "team-a", seq: 3 });
    const runs = (await t.oah.listRuns(session)).items;
    expect(runs.map((r) => [r.workspaceId, r.seq])).toEqual([
      ["team-a", 1],
      ["team-a", 2],
      ["team-a", 3],
    ]);
  });
});
