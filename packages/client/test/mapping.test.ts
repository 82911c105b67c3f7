// @module-tag unit

import { HTTP_ROUTES, matchRoute } from "@oah/api";
import { API_ERROR_STATUS, type ApiErrorCode } from "@oah/core";
import { describe, expect, it, vi } from "vitest";
import { createClient, isOahApiError, OahApiError, type OahClient, OahNetworkError } from "../src";
import { fakeFetch, json, RUN_ID, runWith } from "./fake-fetch";

const BASE = "http://api.test:8787";

describe("the requests each call makes", () => {
  const cases: [string, (c: OahClient) => Promise<unknown>, string, string, unknown][] = [
    [
      "submit",
      (c) => c.submit("team:a.b", { input: { steps: [] }, idempotencyKey: "k" }),
      "POST",
      "/api/v1/sessions/team%3Aa.b/runs",
      { input: { steps: [] }, idempotencyKey: "k" },
    ],
    [
      "submitMany",
      (c) => c.submitMany([{ sessionId: "s", input: { steps: [] } }], { partial: true }),
      "POST",
      "/api/v1/runs/batch",
      { runs: [{ sessionId: "s", input: { steps: [] } }], partial: true },
    ],
    ["get", (c) => c.get(RUN_ID), "GET", `/api/v1/runs/${RUN_ID}`, undefined],
    ["listRuns", (c) => c.listRuns("s"), "GET", "/api/v1/sessions/s/runs", undefined],
    [
      "listRuns with a page",
      (c) => c.listRuns("s", { after: 0, limit: 5 }),
      "GET",
      "/api/v1/sessions/s/runs?after=0&limit=5",
      undefined,
    ],
    [
      "listEvents with a cursor",
      (c) => c.listEvents(RUN_ID, { after: 12 }),
      "GET",
      `/api/v1/runs/${RUN_ID}/events?after=12`,
      undefined,
    ],
    ["steps", (c) => c.steps(RUN_ID), "GET", `/api/v1/runs/${RUN_ID}/steps`, undefined],
    ["cancel", (c) => c.cancel(RUN_ID), "POST", `/api/v1/runs/${RUN_ID}/cancel`, {}],
    ["interrupt", (c) => c.interrupt(RUN_ID), "POST", `/api/v1/runs/${RUN_ID}/interrupt`, {}],
    ["checkpoints", (c) => c.checkpoints(RUN_ID), "GET", `/api/v1/runs/${RUN_ID}/checkpoints`, undefined],
    ["fork", (c) => c.fork(RUN_ID, { fromStep: 7 }), "POST", `/api/v1/runs/${RUN_ID}/fork`, { fromStep: 7 }],
    [
      "message",
      (c) => c.message(RUN_ID, { content: "hi" }),
      "POST",
      `/api/v1/runs/${RUN_ID}/messages`,
      { content: "hi" },
    ],
    [
      "submitToolResult",
      (c) => c.submitToolResult(RUN_ID, "approve", { ok: true }),
      "POST",
      `/api/v1/runs/${RUN_ID}/tool-results`,
      { name: "approve", output: { ok: true } },
    ],
    ["requeue", (c) => c.requeue(RUN_ID), "POST", `/api/v1/runs/${RUN_ID}/requeue`, {}],
    [
      "requeue with options",
      (c) => c.requeue(RUN_ID, { requestedBy: "ops", includeCancelled: true, fromStart: true }),
      "POST",
      `/api/v1/runs/${RUN_ID}/requeue`,
      { requestedBy: "ops", includeCancelled: true, fromStart: true },
    ],
    ["cordon", (c) => c.cordon("host/1"), "POST", "/api/v1/hosts/host%2F1/cordon", {}],
    ["uncordon", (c) => c.uncordon("h"), "POST", "/api/v1/hosts/h/uncordon", {}],
    ["drain", (c) => c.drain("h"), "POST", "/api/v1/hosts/h/drain", {}],
    ["pool", (c) => c.pool(), "GET", "/api/v1/pool", undefined],
    [
      "rollout",
      (c) => c.rollout({ requestedBy: "ops" }),
      "POST",
      "/api/v1/fleet/rollout",
      { requestedBy: "ops" },
    ],
    ["rolloutProgress", (c) => c.rolloutProgress("ro_1"), "GET", "/api/v1/fleet/rollout/ro_1", undefined],
    [
      "listStorageRuns with filters",
      (c) =>
        c.listStorageRuns({ status: ["failed", "timed_out"], workspaceId: "w", limit: 10, cursor: "c1" }),
      "GET",
      "/api/v1/storage/runs?status=failed%2Ctimed_out&workspaceId=w&limit=10&cursor=c1",
      undefined,
    ],
    ["overview", (c) => c.overview(), "GET", "/api/v1/storage/overview", undefined],
    [
      "deadLetters of a workspace",
      (c) => c.deadLetters({ workspaceId: "w" }),
      "GET",
      "/api/v1/storage/dead-letters?workspaceId=w",
      undefined,
    ],
    [
      "usage of a workspace over a range",
      (c) => c.usage({ workspaceId: "w", from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z" }),
      "GET",
      "/api/v1/usage?workspaceId=w&from=2026-12-01T00%3A00%3A00Z&to=2026-12-02T00%3A00%3A00Z",
      undefined,
    ],
    [
      "requeueMany",
      (c) => c.requeueMany([RUN_ID], { requestedBy: "ops" }),
      "POST",
      "/api/v1/runs/requeue",
      { runIds: [RUN_ID], requestedBy: "ops" },
    ],
    [
      "bulkDryRun",
      (c) => c.bulkDryRun({ action: "cancel", filter: { status: ["queued"] } }),
      "POST",
      "/api/v1/bulk-actions",
      { action: "cancel", filter: { status: ["queued"] }, dryRun: true },
    ],
    [
      "startBulkAction",
      (c) =>
        c.startBulkAction({
          action: "requeue",
          filter: { errorCode: ["run_timed_out"] },
          includeCancelled: true,
        }),
      "POST",
      "/api/v1/bulk-actions",
      { action: "requeue", filter: { errorCode: ["run_timed_out"] }, includeCancelled: true, dryRun: false },
    ],
    [
      "listBulkActions",
      (c) => c.listBulkActions({ limit: 5 }),
      "GET",
      "/api/v1/bulk-actions?limit=5",
      undefined,
    ],
    ["getBulkAction", (c) => c.getBulkAction("bulk_1"), "GET", "/api/v1/bulk-actions/bulk_1", undefined],
    [
      "listBulkActionItems",
      (c) => c.listBulkActionItems("bulk_1", { outcome: "requeued", cursor: "100" }),
      "GET",
      "/api/v1/bulk-actions/bulk_1/items?outcome=requeued&cursor=100",
      undefined,
    ],
    ["abortBulkAction", (c) => c.abortBulkAction("bulk_1"), "POST", "/api/v1/bulk-actions/bulk_1/abort", {}],
    [
      "inspectSession",
      (c) => c.inspectSession("team:a"),
      "GET",
      "/api/v1/sessions/team%3Aa/inspect",
      undefined,
    ],
    [
      "cancelQueued from a position",
      (c) => c.cancelQueued("s", { fromPosition: 3 }),
      "POST",
      "/api/v1/sessions/s/cancel-queued",
      { fromPosition: 3 },
    ],
    ["jams", (c) => c.jams(), "GET", "/api/v1/health/jams", undefined],
    [
      "repairJams of named sessions",
      (c) => c.repairJams("orphan_lock", { sessionIds: ["s"] }),
      "POST",
      "/api/v1/health/jams/orphan_lock/repair",
      { sessionIds: ["s"] },
    ],
    [
      "audit of an actor",
      (c) => c.audit({ actor: "ops", action: "run.requeue", limit: 2 }),
      "GET",
      "/api/v1/audit?actor=ops&action=run.requeue&limit=2",
      undefined,
    ],
    ["whoami", (c) => c.whoami(), "GET", "/api/v1/auth/whoami", undefined],
    [
      "listSessionEvents with a cursor",
      (c) => c.listSessionEvents("s", { after: 7, limit: 2 }),
      "GET",
      "/api/v1/sessions/s/events?after=7&limit=2",
      undefined,
    ],
  ];

  it.each(cases)("%s", async (_name, call, method, path, body) => {
    const { fetch, seen } = fakeFetch(() => json(200, { run: runWith(), items: [] }));
    await call(createClient({ baseUrl: `${BASE}/`, token: "secret-token", fetch }));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({
      method,
      url: `${BASE}${path}`,
      headers: {
        accept: "application/json",
        authorization: "Bearer secret-token",
        ...(method === "POST" ? { "content-type": "application/json" } : {}),
      },
      body,
    });
  });

  it("has a call for every route of the HTTP API", () => {
    const reached = cases.map(([name, , method, path]) => {
      const match = matchRoute(method, new URL(path, BASE).pathname);
      if (match.kind !== "route") throw new Error(`${name}: ${method} ${path} is no route of the API`);
      return `${method} ${match.route.path}`;
    });
    expect(new Set(reached)).toEqual(new Set(HTTP_ROUTES.map((r) => `${r.method} ${r.path}`)));
  });

  it("sends no authorization without a token, and keeps the base URL's path", async () => {
    const { fetch, seen } = fakeFetch(() => json(200, { items: [] }));
    await createClient({ baseUrl: "https://proxy.test/oah//", fetch }).steps(RUN_ID);
    expect(seen[0]!.url).toBe(`https://proxy.test/oah/api/v1/runs/${RUN_ID}/steps`);
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it("unwraps the answers that carry one thing", async () => {
    const { fetch } = fakeFetch((r) =>
      r.url.endsWith("/steps") ? json(200, { items: [{ id: 1 }] }) : json(200, { run: runWith() }),
    );
    const client = createClient({ baseUrl: BASE, fetch });
    expect(await client.get(RUN_ID)).toEqual(runWith());
    expect(await client.steps(RUN_ID)).toEqual([{ id: 1 }]);
  });

  it("refuses a base URL that is not one, or a relative one outside a page", () => {
    expect(() => createClient({ baseUrl: "not a url" })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: "/oah" })).toThrow(TypeError);
  });

  it("takes a relative base URL from the page's address in a browser", async () => {
    vi.stubGlobal("location", { href: "https://console.test/runs?x=1" });
    try {
      const { fetch, seen } = fakeFetch(() => json(200, { items: [] }));
      await createClient({ baseUrl: "/oah", fetch }).steps(RUN_ID);
      expect(seen[0]!.url).toBe(`https://console.test/oah/api/v1/runs/${RUN_ID}/steps`);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

interface Expected {
  code: ApiErrorCode;
  status: number;
  message: string | RegExp;
  issues?: { path: string; message: string }[];
  body: unknown;
}

const envelope = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message, ...extra },
});

describe("the errors answers map to", () => {
  const cases: [string, () => Response, Expected][] = [
    [
      "a known code, with its message",
      () => json(404, envelope("run_not_found", `no run ${RUN_ID}`)),
      {
        code: "run_not_found",
        status: 404,
        message: `no run ${RUN_ID}`,
        body: envelope("run_not_found", `no run ${RUN_ID}`),
      },
    ],
    [
      "invalid_request with its issues",
      () =>
        json(
          400,
          envelope("invalid_request", "input.steps: required", {
            issues: [{ path: "input.steps", message: "required" }],
          }),
        ),
      {
        code: "invalid_request",
        status: 400,
        message: "input.steps: required",
        issues: [{ path: "input.steps", message: "required" }],
        body: envelope("invalid_request", "input.steps: required", {
          issues: [{ path: "input.steps", message: "required" }],
        }),
      },
    ],
    [
      "issues that are not the API's shape, left out",
      () => json(400, envelope("invalid_request", "bad", { issues: [{ path: 3 }] })),
      {
        code: "invalid_request",
        status: 400,
        message: "bad",
        body: envelope("invalid_request", "bad", { issues: [{ path: 3 }] }),
      },
    ],
    [
      "unauthorized",
      () => json(401, envelope("unauthorized", "missing or wrong bearer token")),
      {
        code: "unauthorized",
        status: 401,
        message: "missing or wrong bearer token",
        body: envelope("unauthorized", "missing or wrong bearer token"),
      },
    ],
    [
      "a refused requeue",
      () => json(409, envelope("run_requeue_invalid_status", "the run is completed")),
      {
        code: "run_requeue_invalid_status",
        status: 409,
        message: "the run is completed",
        body: envelope("run_requeue_invalid_status", "the run is completed"),
      },
    ],
    [
      "a known code without a message, named by its code",
      () => json(503, { error: { code: "store_unavailable" } }),
      {
        code: "store_unavailable",
        status: 503,
        message: "store_unavailable",
        body: { error: { code: "store_unavailable" } },
      },
    ],
    [
      "a code this client does not know, as internal_error with the answer kept",
      () => json(418, envelope("teapot", "short and stout")),
      {
        code: "internal_error",
        status: 418,
        message:
          "the API answered 418 with an error code this client does not know (teapot): short and stout",
        body: envelope("teapot", "short and stout"),
      },
    ],
    [
      "a proxy's page, as internal_error with its text",
      () => new Response("<html>Bad Gateway</html>", { status: 502 }),
      {
        code: "internal_error",
        status: 502,
        message: "the API answered 502",
        body: "<html>Bad Gateway</html>",
      },
    ],
    [
      "JSON that is not the envelope",
      () => json(500, { message: "oops" }),
      { code: "internal_error", status: 500, message: "the API answered 500", body: { message: "oops" } },
    ],
    [
      "an empty body",
      () => new Response(null, { status: 500 }),
      { code: "internal_error", status: 500, message: "the API answered 500", body: "" },
    ],
    [
      "a success whose body is not JSON",
      () => new Response("ok", { status: 200 }),
      {
        code: "internal_error",
        status: 200,
        message: "the API answered 200 with a body that is not JSON",
        body: "ok",
      },
    ],
  ];

  it.each(cases)("%s", async (_name, answer, expected) => {
    const { fetch } = fakeFetch(answer);
    const error = await createClient({ baseUrl: BASE, fetch })
      .get(RUN_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OahApiError);
    expect(isOahApiError(error, expected.code)).toBe(true);
    const e = error as OahApiError;
    expect({ code: e.code, status: e.status, issues: e.issues, body: e.body }).toEqual({
      code: expected.code,
      status: expected.status,
      issues: expected.issues,
      body: expected.body,
    });
    expect(e.message).toEqual(expected.message);
    expect(e.name).toBe("OahApiError");
    expect({ method: e.method, url: e.url }).toEqual({ method: "GET", url: `${BASE}/api/v1/runs/${RUN_ID}` });
  });

  it("every code the API has keeps its code and status", async () => {
    for (const [code, status] of Object.entries(API_ERROR_STATUS)) {
      const { fetch } = fakeFetch(() => json(status, envelope(code, "m")));
      const error = await createClient({ baseUrl: BASE, fetch })
        .cancel(RUN_ID)
        .catch((e: unknown) => e);
      expect(isOahApiError(error, code as ApiErrorCode), code).toBe(true);
      expect((error as OahApiError).status).toBe(status);
    }
  });

  it("isOahApiError tells the code apart, and other errors from it", () => {
    const error = new OahApiError({
      code: "run_not_found",
      status: 404,
      message: "m",
      body: null,
      method: "GET",
      url: BASE,
    });
    expect(isOahApiError(error)).toBe(true);
    expect(isOahApiError(error, "run_not_found")).toBe(true);
    expect(isOahApiError(error, "not_found")).toBe(false);
    expect(isOahApiError(new Error("m"))).toBe(false);
    expect(isOahApiError({ code: "run_not_found", status: 404 })).toBe(false);
  });

  it.each([
    [
      "fetch rejects",
      () => {
        throw new TypeError("fetch failed");
      },
      /fetch failed/,
    ],
    [
      "the body cannot be read",
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.error(new Error("socket hang up"));
            },
          }),
          { status: 200 },
        ),
      /socket hang up/,
    ],
  ])("a network error when %s, with its cause", async (_name, answer, message) => {
    const { fetch } = fakeFetch(answer);
    const error = await createClient({ baseUrl: BASE, fetch })
      .pool()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OahNetworkError);
    expect(isOahApiError(error)).toBe(false);
    const e = error as OahNetworkError;
    expect(e.name).toBe("OahNetworkError");
    expect(e.message).toMatch(message);
    expect(e.message).toContain(`GET ${BASE}/api/v1/pool`);
    expect(e.cause).toBeInstanceOf(Error);
    expect({ method: e.method, url: e.url }).toEqual({ method: "GET", url: `${BASE}/api/v1/pool` });
  });
});
