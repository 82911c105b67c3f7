// @module-tag system

import type { AuditPage } from "@oah/contract";
import type { Role } from "@oah/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, callAs, namedToken, startApi } from "./support";

const TOKENS: { name: string; role: Role }[] = [
  { name: "ci", role: "submitter" },
  { name: "alice", role: "operator" },
  { name: "vera", role: "viewer" },
  { name: "bot", role: "operator" },
];
/** The audited actions a token may make at once (OAH_AUDIT_ACTIONS_PER_MINUTE's default). */
const PER_MINUTE = 60;

describe("the audit log of operator actions", () => {
  let t: ApiUnderTest;
  const call = (as: string, method: string, path: string, body?: unknown) =>
    callAs(t.api.url, as, method, path, body);
  const audit = async (query = "") =>
    (await call("vera", "GET", `/api/v1/audit${query}`)).body as unknown as AuditPage;

  beforeAll(async () => {
    t = await startApi("sqlite", {
      OAH_API_TOKENS: JSON.stringify(TOKENS.map((x) => ({ ...x, token: namedToken(x.name) }))),
      // Room for a megabyte of parameters: what the log keeps of them is the question.
      OAH_MAX_BODY_BYTES: String(4 * 1_048_576),
    });
  });
  afterAll(() => t?.dispose());

  it("records each action with who, their role, the target, what was asked and how it ended", async () => {
    const submitted = await call("ci", "POST", "/api/v1/sessions/audited/runs", {
      input: { steps: [{ type: "wait_tool", name: "approve" }] },
    });
    const runId = (submitted.body.run as { id: string }).id;
    expect(
      (await call("ci", "POST", `/api/v1/runs/${runId}/tool-results`, { name: "nope", output: 1 })).status,
    ).toBe(409);
    expect((await call("vera", "POST", `/api/v1/runs/${runId}/requeue`, {})).status).toBe(403);
    expect((await call("alice", "POST", "/api/v1/hosts/no-such-host/cordon", {})).status).toBe(404);
    expect((await call("alice", "POST", `/api/v1/runs/${runId}/cancel`, {})).status).toBe(202);

    const { items } = await audit();
    expect(items.map((e) => [e.actor, e.role, e.action, e.target, e.outcome])).toEqual([
      ["alice", "operator", "run.cancel", runId, { ok: true }],
      [
        "alice",
        "operator",
        "host.cordon",
        "no-such-host",
        { ok: false, errorCode: "host_not_found", message: expect.any(String) },
      ],
      [
        "vera",
        "viewer",
        "run.requeue",
        runId,
        { ok: false, errorCode: "forbidden", message: expect.any(String) },
      ],
      [
        "ci",
        "submitter",
        "run.tool_result",
        runId,
        { ok: false, errorCode: "tool_result_wrong_name", message: expect.any(String) },
      ],
    ]);
    // A tool's result is the client's data: only its name is kept.
    expect(items[3]!.params).toEqual({ runId, name: "nope" });
    expect(Date.parse(items[0]!.at)).toBeGreaterThanOrEqual(Date.parse(items[3]!.at));
    // Submissions and reads are not operator actions.
    expect(items.map((e) => e.action)).not.toContain("run.submit");
  });

  it("filters by actor and by action, and pages newest first", async () => {
    for (let i = 0; i < 3; i++) await call("alice", "POST", `/api/v1/hosts/h-${i}/drain`, {});
    const byAlice = await audit("?actor=alice");
    expect(byAlice.items.every((e) => e.actor === "alice")).toBe(true);
    const drains = await audit("?action=host.drain&limit=2");
    expect(drains.items.map((e) => e.target)).toEqual(["h-2", "h-1"]);
    expect(drains.nextCursor).not.toBeNull();
    const rest = await audit(`?action=host.drain&limit=2&cursor=${drains.nextCursor}`);
    expect(rest.items.map((e) => e.target)).toEqual(["h-0"]);
    expect(rest.nextCursor).toBeNull();
    expect((await call("vera", "GET", "/api/v1/audit?action=host.explode")).status).toBe(400);
    expect((await call("vera", "GET", "/api/v1/audit?cursor=abc")).status).toBe(400);
  });

  it("keeps a megabyte of parameters as their size and their start, and nothing a sign-in is sent", async () => {
    const megabyte = "x".repeat(1_048_576);
    const runId = "run_01KB0000000000000000000000";
    // Refused by its schema: what the log keeps of it is what was sent, bounded.
    const refused = await call("alice", "POST", `/api/v1/runs/${runId}/requeue`, { requestedBy: megabyte });
    expect(refused.body).toMatchObject({ error: { code: "invalid_request" } });
    const signIn = await fetch(`${t.api.url}/trpc/auth.signIn`, {
      method: "POST",
      headers: { authorization: `Bearer ${namedToken("alice")}`, "content-type": "application/json" },
      body: JSON.stringify({ note: megabyte }),
    });
    expect(signIn.status).toBe(200);

    const page = await call("vera", "GET", "/api/v1/audit?actor=alice&limit=2");
    expect(page.bytes).toBeLessThan(8_192);
    const [signedIn, requeue] = (page.body as unknown as AuditPage).items;
    expect(signedIn).toMatchObject({ action: "console.sign_in", params: null, outcome: { ok: true } });
    const sent = JSON.stringify({ runId, requestedBy: megabyte });
    expect(requeue).toMatchObject({
      action: "run.requeue",
      target: runId,
      params: { truncated: true, bytes: sent.length, head: sent.slice(0, 1_024) },
      outcome: { ok: false, errorCode: "invalid_request" },
    });
  });

  it("refuses a token's audited actions past its share with 429 and Retry-After, unrecorded, and no other token's", async () => {
    const cordon = (as: string, i: number) => call(as, "POST", `/api/v1/hosts/bot-host-${i}/cordon`, {});
    for (let i = 0; i < PER_MINUTE; i++) expect((await cordon("bot", i)).status).toBe(404);
    const refused = await cordon("bot", PER_MINUTE);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "too_many_actions", message: expect.stringMatching(/bot/) },
    });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // Over tRPC alike.
    const overTrpc = await fetch(`${t.api.url}/trpc/fleet.cordon`, {
      method: "POST",
      headers: { authorization: `Bearer ${namedToken("bot")}`, "content-type": "application/json" },
      body: JSON.stringify({ hostId: "bot-host-trpc" }),
    });
    expect(overTrpc.status).toBe(429);
    expect(Number(overTrpc.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await overTrpc.json()).toMatchObject({ error: { data: { errorCode: "too_many_actions" } } });

    // What is not an audited action goes on; another token's actions too.
    expect((await call("bot", "GET", "/api/v1/auth/whoami")).status).toBe(200);
    expect((await cordon("alice", 0)).status).toBe(404);
    const logged = (await audit("?actor=bot&limit=200")).items;
    expect(logged.map((e) => e.target)).toEqual(
      Array.from({ length: PER_MINUTE }, (_, i) => `bot-host-${PER_MINUTE - 1 - i}`),
    );

    // One action comes back a second.
    await new Promise((resolve) => setTimeout(resolve, Number(refused.retryAfter) * 1_000));
    expect((await cordon("bot", PER_MINUTE + 1)).status).toBe(404);
  });

  it("is for viewers and up: a submitter may not read it", async () => {
    expect((await call("ci", "GET", "/api/v1/audit")).body).toMatchObject({ error: { code: "forbidden" } });
  });
});
