import type { AuditPage } from "@oah/contract";
import type { Role } from "@oah/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

const token = (name: string) => `${name}-token-0123456789abcdefghijklmnop`;
const TOKENS: { name: string; role: Role }[] = [
  { name: "ci", role: "submitter" },
  { name: "alice", role: "operator" },
  { name: "vera", role: "viewer" },
];

describe("the audit log of operator actions", () => {
  let t: ApiUnderTest;
  const call = async (as: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${t.api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token(as)}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const audit = async (query = "") =>
    (await call("vera", "GET", `/api/v1/audit${query}`)).body as unknown as AuditPage;

  beforeAll(async () => {
    t = await startApi("sqlite", {
      OAH_API_TOKENS: JSON.stringify(TOKENS.map((x) => ({ ...x, token: token(x.name) }))),
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

  it("is for viewers and up: a submitter may not read it", async () => {
    expect((await call("ci", "GET", "/api/v1/audit")).body).toMatchObject({ error: { code: "forbidden" } });
  });
});
