// @module-tag system

import { appRouter, HTTP_ROUTES, type HttpRoute, routeCall } from "@oah/api";
import type { SessionInspection } from "@oah/contract";
import { ROLES, type Role } from "@oah/core";
import { createTestRedis, type OahProcess, POSTGRES_ADMIN_URL, startOah, type TestRedis } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

const NO_JOB = "bulk_00000000000000000000000000";
const token = (role: Role) => `${role}-token-0123456789abcdefghijklmnop`;
const TOKENS = ROLES.map((role) => ({ name: `the-${role}`, token: token(role), role }));
const bearer = (role: Role) => ({ authorization: `Bearer ${token(role)}` });

const ANYONE = ROLES;
const READERS: Role[] = ["submitter", "viewer", "operator", "admin"];
const VIEWERS: Role[] = ["viewer", "operator", "admin"];
const OPERATORS: Role[] = ["operator", "admin"];
const SUBMITTERS: Role[] = ["submitter", "admin"];

/** Who may call each procedure (docs/spec.md §13), written out: a procedure missing here fails the test. */
const MAY_CALL: Record<string, readonly Role[]> = {
  "runs.submit": SUBMITTERS,
  "runs.submitMany": SUBMITTERS,
  "runs.get": READERS,
  "runs.listBySession": READERS,
  "runs.events": READERS,
  "runs.onEvents": READERS,
  "runs.steps": READERS,
  "runs.cancel": ["submitter", "operator", "admin"],
  "runs.interrupt": ["submitter", "operator", "admin"],
  "runs.submitToolResult": SUBMITTERS,
  "runs.fork": ["submitter", "operator", "admin"],
  "runs.message": SUBMITTERS,
  "runs.checkpoints": READERS,
  "sessions.events": READERS,
  "sessions.onEvents": READERS,
  "admin.runs": VIEWERS,
  "admin.overview": VIEWERS,
  "admin.deadLetters": VIEWERS,
  "admin.modelUsage": VIEWERS,
  "admin.requeue": OPERATORS,
  "admin.requeueMany": OPERATORS,
  "admin.audit": VIEWERS,
  "admin.bulkAction": OPERATORS,
  "admin.bulkActions": VIEWERS,
  "admin.bulkActionGet": VIEWERS,
  "admin.bulkActionItems": VIEWERS,
  "admin.bulkActionAbort": OPERATORS,
  "admin.pool": VIEWERS,
  "admin.onChanges": VIEWERS,
  "admin.inspectSession": VIEWERS,
  "admin.cancelQueued": OPERATORS,
  "admin.jams": VIEWERS,
  "admin.repairJams": OPERATORS,
  "fleet.cordon": OPERATORS,
  "fleet.uncordon": OPERATORS,
  "fleet.drain": OPERATORS,
  "fleet.rollout": ["admin"],
  "fleet.rolloutProgress": VIEWERS,
  "auth.whoami": ANYONE,
  "auth.signIn": ANYONE,
  "auth.signOut": ANYONE,
};

interface Answer {
  status: number;
  code: string | undefined;
}

describe("roles: every procedure × every role, over HTTP and tRPC", () => {
  let t: ApiUnderTest;
  /** A run that waits for its tool: what refused cancels and tool results must leave as it is. */
  let runId: string;
  const inputs = (): Record<string, unknown> => ({
    "runs.submit": { sessionId: "roles-new", input: { steps: [] } },
    "runs.submitMany": { runs: [{ sessionId: "roles-new", input: { steps: [] } }] },
    "runs.get": { runId },
    "runs.listBySession": { sessionId: "roles" },
    "runs.events": { runId },
    "runs.onEvents": { runId },
    "runs.steps": { runId },
    "runs.cancel": { runId: "run_00000000000000000000000000" },
    "runs.interrupt": { runId: "run_00000000000000000000000000" },
    "runs.submitToolResult": { runId: "run_00000000000000000000000000", name: "approve", output: 1 },
    // No such step: an allowed fork is refused 404 and makes no run.
    "runs.fork": { runId, fromStep: 999_999 },
    // A script run: an allowed message is refused 409 run_not_steerable and writes nothing.
    "runs.message": { runId, content: "hello" },
    "runs.checkpoints": { runId },
    "sessions.events": { sessionId: "roles" },
    "sessions.onEvents": { sessionId: "roles" },
    "admin.runs": {},
    "admin.requeue": { runId },
    "admin.requeueMany": { runIds: [runId] },
    "admin.audit": {},
    "admin.deadLetters": {},
    "admin.modelUsage": {},
    // A dry run of a filter that matches nothing: an allowed call changes nothing either.
    "admin.bulkAction": { action: "cancel", filter: { sessionId: "nobody" }, dryRun: true },
    "admin.bulkActions": {},
    "admin.bulkActionGet": { id: NO_JOB },
    "admin.bulkActionItems": { id: NO_JOB },
    "admin.bulkActionAbort": { id: NO_JOB },
    // The session's one run waits for its tool, parked: no queued run to cancel.
    "admin.inspectSession": { sessionId: "roles" },
    "admin.cancelQueued": { sessionId: "roles" },
    "admin.repairJams": { kind: "lost_wake" },
    "fleet.cordon": { hostId: "no-such-host" },
    "fleet.uncordon": { hostId: "no-such-host" },
    "fleet.drain": { hostId: "no-such-host" },
    "fleet.rollout": {},
    "fleet.rolloutProgress": { rolloutId: "rollout_00000000000000000000000000" },
  });

  /** What a refusal must leave alone: the runs, their events, and the hosts' orders. */
  async function world(): Promise<string> {
    const admin = { authorization: `Bearer ${token("admin")}` };
    const read = async <T>(path: string) =>
      (await (await fetch(`${t.api.url}${path}`, { headers: admin })).json()) as T;
    const [overview, events, pool] = await Promise.all([
      read<{ statusCounts: unknown }>("/api/v1/storage/overview"),
      read<{ items: unknown[] }>(`/api/v1/runs/${runId}/events`),
      read<{ hosts: { state: string }[] }>("/api/v1/pool"),
    ]);
    return JSON.stringify([overview.statusCounts, events.items.length, pool.hosts.map((h) => h.state)]);
  }

  beforeAll(async () => {
    t = await startApi("sqlite", { OAH_API_TOKENS: JSON.stringify(TOKENS) });
    const submitted = await fetch(`${t.api.url}/api/v1/sessions/roles/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token("submitter")}`, "content-type": "application/json" },
      body: JSON.stringify({ input: { steps: [{ type: "wait_tool", name: "approve" }] } }),
    });
    runId = ((await submitted.json()) as { run: { id: string } }).run.id;
  });
  afterAll(() => t?.dispose());

  it("lists every procedure of the router", () => {
    const procedures = Object.keys(appRouter._def.procedures).sort();
    expect(procedures).toEqual(Object.keys(MAY_CALL).sort());
  });

  /** A tRPC call as a client sends it: a query by GET, a mutation by POST, a subscription as a stream. */
  async function trpcCall(path: string, role: Role): Promise<Answer> {
    const procedure = (appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)[
      path
    ]!;
    const type = procedure._def.type;
    const input = inputs()[path];
    const headers: Record<string, string> = { authorization: `Bearer ${token(role)}` };
    const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    const closed = new AbortController();
    const response =
      type === "mutation"
        ? await fetch(`${t.api.url}/trpc/${path}`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json" },
            body: JSON.stringify(input ?? {}),
          })
        : await fetch(`${t.api.url}/trpc/${path}${query}`, {
            headers: type === "subscription" ? { ...headers, accept: "text/event-stream" } : headers,
            signal: closed.signal,
          });
    if (type === "subscription") {
      // A refused subscription sends its error as the stream's first message.
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      closed.abort();
      const refused = /"errorCode":"forbidden"/.test(first);
      return { status: refused ? 403 : response.status, code: refused ? "forbidden" : undefined };
    }
    const body = (await response.json()) as { error?: { data?: { errorCode?: string } } };
    return { status: response.status, code: body.error?.data?.errorCode };
  }

  describe.each(ROLES)("as %s", (role) => {
    it.each(Object.keys(MAY_CALL))(
      "over tRPC, %s: allowed, or 403 forbidden with nothing changed",
      async (path) => {
        const before = await world();
        const answer = await trpcCall(path, role);
        if (MAY_CALL[path]!.includes(role)) {
          expect(answer.status, `${role} ${path}`).not.toBe(403);
        } else {
          expect(answer, `${role} ${path}`).toEqual({ status: 403, code: "forbidden" });
          expect(await world()).toBe(before);
        }
      },
    );

    it.each(HTTP_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
      "over HTTP, %s: allowed, or 403 forbidden with nothing changed",
      async (_name, route) => {
        const path = route.path
          .replace(":runId", runId)
          .replace(":sessionId", "roles")
          .replace(":hostId", "no-such-host")
          .replace(":rolloutId", "rollout_00000000000000000000000000")
          .replace(":id", NO_JOB)
          .replace(":kind", "lost_wake");
        const body = {
          "/api/v1/sessions/:sessionId/runs": { input: { steps: [] } },
          "/api/v1/runs/:runId/tool-results": { name: "approve", output: 1 },
          "/api/v1/runs/:runId/fork": { fromStep: 999_999 },
          "/api/v1/runs/:runId/messages": { content: "hello" },
          "/api/v1/runs/requeue": { runIds: [runId] },
          "/api/v1/bulk-actions": { action: "cancel", filter: { sessionId: "nobody" }, dryRun: true },
        }[route.path];
        const before = await world();
        const response = await fetch(`${t.api.url}${path}`, {
          method: route.method,
          headers: {
            authorization: `Bearer ${token(role)}`,
            ...(route.method === "POST" ? { "content-type": "application/json" } : {}),
          },
          ...(route.method === "POST" ? { body: JSON.stringify(body ?? {}) } : {}),
        });
        const answer = (await response.json()) as { error?: { code: string } };
        const procedure = procedureOf(route);
        if (MAY_CALL[procedure]!.includes(role)) {
          expect(response.status, `${role} ${route.method} ${route.path}`).not.toBe(403);
        } else {
          expect([response.status, answer.error?.code], `${role} ${route.method} ${route.path}`).toEqual([
            403,
            "forbidden",
          ]);
          expect(await world()).toBe(before);
        }
      },
    );

    it("the API's /metrics: viewers and up, a submitter 403 forbidden", async () => {
      const response = await fetch(`${t.api.url}/metrics`, { headers: bearer(role) });
      await expectViewersOnly(response, role, /^oah_event_streams_open /m);
    });
  });

  it("names the caller: each token's name and role", async () => {
    for (const { name, role } of TOKENS) {
      const response = await fetch(`${t.api.url}/api/v1/auth/whoami`, {
        headers: { authorization: `Bearer ${token(role)}` },
      });
      expect(await response.json()).toEqual({ actor: { name, role } });
    }
  });

  it("the session inspector shows the lock's fencing token to operators and admins only", async () => {
    const submitted = await fetch(`${t.api.url}/api/v1/sessions/roles-locked/runs`, {
      method: "POST",
      headers: { ...bearer("submitter"), "content-type": "application/json" },
      body: JSON.stringify({ input: { steps: [{ type: "sleep", ms: 60_000 }] } }),
    });
    const running = ((await submitted.json()) as { run: { id: string } }).run.id;
    const inspect = async (role: Role) =>
      (await (
        await fetch(`${t.api.url}/api/v1/sessions/roles-locked/inspect`, { headers: bearer(role) })
      ).json()) as SessionInspection;
    try {
      await expect.poll(async () => (await inspect("admin")).lock?.holder, { timeout: 10_000 }).toBe(running);
      for (const role of ["viewer", "operator", "admin"] as const) {
        const { lock } = await inspect(role);
        expect(lock, role).toMatchObject({ holder: running, workerId: expect.any(String) });
        if (role === "viewer") expect(lock, role).not.toHaveProperty("token");
        else expect(lock?.token, role).toMatch(/\S{8,}/);
      }
      const trpc = await fetch(
        `${t.api.url}/trpc/admin.inspectSession?input=${encodeURIComponent(JSON.stringify({ sessionId: "roles-locked" }))}`,
        { headers: bearer("viewer") },
      );
      const body = (await trpc.json()) as { result: { data: SessionInspection } };
      expect(body.result.data.lock).toMatchObject({ holder: running });
      expect(body.result.data.lock).not.toHaveProperty("token");
    } finally {
      await fetch(`${t.api.url}/api/v1/runs/${running}/cancel`, {
        method: "POST",
        headers: { ...bearer("admin"), "content-type": "application/json" },
        body: "{}",
      });
    }
  });
});

/** An answer to what viewers and up may read: 200 with `shows` for them, 403 `forbidden` for a submitter. */
async function expectViewersOnly(response: Response, role: Role, shows: RegExp): Promise<void> {
  const text = await response.text();
  if (VIEWERS.includes(role)) {
    expect(response.status, role).toBe(200);
    expect(text, role).toMatch(shows);
  } else {
    expect([response.status, (JSON.parse(text) as { error: { code: string } }).error.code], role).toEqual([
      403,
      "forbidden",
    ]);
  }
}

describe("roles: the controller's /snapshot and /metrics × every role", () => {
  let redis: TestRedis;
  let controller: OahProcess;
  beforeAll(async () => {
    redis = await createTestRedis();
    controller = await startOah("oah-controller", {
      env: {
        OAH_REDIS_URL: redis.url,
        OAH_REDIS_PREFIX: redis.prefix,
        OAH_DATABASE_URL: POSTGRES_ADMIN_URL,
        OAH_API_TOKENS: JSON.stringify(TOKENS),
        OAH_CONTROLLER_TARGET: "none",
      },
    });
  });
  afterAll(async () => {
    await controller?.stop("SIGKILL");
    await redis?.dispose();
  });

  describe.each(ROLES)("as %s", (role) => {
    it.each([
      ["/snapshot", /"desiredReplicas"/],
      ["/metrics", /^oah_controller_desired_replicas /m],
    ])("%s: viewers and up, a submitter 403 forbidden", async (path, shows) => {
      const response = await fetch(`${controller.url}${path}`, { headers: bearer(role) });
      await expectViewersOnly(response, role, shows);
    });
  });
});

/** The procedure an HTTP route calls, as its own `call` says. */
function procedureOf(route: HttpRoute): string {
  const call = routeCall(route);
  if (!call) throw new Error(`the route ${route.method} ${route.path} calls no procedure`);
  return call.procedure;
}
