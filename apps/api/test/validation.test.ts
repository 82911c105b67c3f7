// @module-tag system

import { rawRequest } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

interface ErrorBody {
  error: { code: string; message: string };
}

describe("bad input is refused with a 4xx and a code, and changes nothing", () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi("sqlite", { OAH_MAX_BODY_BYTES: "4096" });
  });
  afterAll(() => t?.dispose());

  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    t.client.request<ErrorBody>("POST", path, body, headers);
  /** Exactly these headers: no content type unless given, and `Host` as a browser would send it. */
  const raw = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const res = await rawRequest(`${t.api.url}${path}`, { method, headers, body });
    return { status: res.status, body: JSON.parse(res.text) as ErrorBody };
  };
  const submission = JSON.stringify({ input: { steps: [{ type: "shell", command: "touch pwned" }] } });
  const host = () => new URL(t.api.url).host;

  const cases: [string, () => Promise<{ status: number; body: ErrorBody }>, number, string, RegExp][] = [
    [
      "unknown executor",
      () => post("/api/v1/sessions/bad-1/runs", { executor: "robot", input: { steps: [] } }),
      400,
      "invalid_request",
      /unknown executor/,
    ],
    [
      "an input of the wrong executor",
      () => post("/api/v1/sessions/bad-1/runs", { executor: "agent", input: { steps: [] } }),
      400,
      "invalid_request",
      /prompt/,
    ],
    [
      "unknown step type",
      () => post("/api/v1/sessions/bad-1/runs", { input: { steps: [{ type: "teleport" }] } }),
      400,
      "invalid_request",
      /unknown step type "teleport"/,
    ],
    [
      "a bad session id",
      () => post(`/api/v1/sessions/${encodeURIComponent("has space")}/runs`, { input: { steps: [] } }),
      400,
      "invalid_request",
      /session id/,
    ],
    [
      "a session id that is too long",
      () => post(`/api/v1/sessions/${"x".repeat(129)}/runs`, { input: { steps: [] } }),
      400,
      "invalid_request",
      /session id/,
    ],
    [
      "wrong types",
      () =>
        post("/api/v1/sessions/bad-1/runs", {
          input: { steps: [{ type: "sleep", ms: "10" }] },
          timeoutMs: -1,
        }),
      400,
      "invalid_request",
      /input\.steps\.0\.ms.*timeoutMs|timeoutMs.*input\.steps\.0\.ms/,
    ],
    [
      "an unknown field",
      () => post("/api/v1/sessions/bad-1/runs", { input: { steps: [] }, prio: "high" }),
      400,
      "invalid_request",
      /prio/,
    ],
    [
      "a workspace id that climbs out of the root",
      () => post("/api/v1/sessions/bad-1/runs", { input: { steps: [] }, workspaceId: ".." }),
      400,
      "invalid_request",
      /workspace id/,
    ],
    [
      "a body that is not an object",
      () => post("/api/v1/sessions/bad-1/runs", [1, 2]),
      400,
      "invalid_request",
      /JSON object/,
    ],
    [
      "malformed JSON",
      () => post("/api/v1/sessions/bad-1/runs", "{oops"),
      400,
      "invalid_json",
      /not valid JSON/,
    ],
    [
      "a body that is not JSON",
      () => post("/api/v1/sessions/bad-1/runs", "steps=1", { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
      /application\/json/,
    ],
    [
      "a body with no content type (a page's no-cors fetch or sendBeacon of a Blob)",
      () => raw("POST", "/api/v1/sessions/bad-1/runs", { host: host() }, submission),
      415,
      "unsupported_media_type",
      /application\/json/,
    ],
    [
      "a tRPC mutation with no content type",
      () =>
        raw(
          "POST",
          "/trpc/runs.submit",
          { host: host() },
          JSON.stringify({ sessionId: "bad-1", input: { steps: [] } }),
        ),
      415,
      "unsupported_media_type",
      /application\/json/,
    ],
    [
      "a request from a page of another site",
      () =>
        raw(
          "POST",
          "/api/v1/sessions/bad-1/runs",
          { host: host(), origin: "http://evil.example", "content-type": "application/json" },
          submission,
        ),
      403,
      "forbidden_origin",
      /web pages/,
    ],
    [
      "a request a browser marks cross-site",
      () => raw("GET", "/api/v1/sessions/bad-1/runs", { host: host(), "sec-fetch-site": "cross-site" }),
      403,
      "forbidden_origin",
      /web pages/,
    ],
    [
      "a request addressed to another name (DNS rebinding)",
      () =>
        raw(
          "POST",
          "/api/v1/sessions/bad-1/runs",
          { host: `evil.example:${new URL(t.api.url).port}`, "content-type": "application/json" },
          submission,
        ),
      403,
      "forbidden_origin",
      /loopback name only/,
    ],
    [
      "a tRPC call with a method tRPC does not take",
      () => raw("PUT", "/trpc/runs.submit", { host: host(), "content-type": "application/json" }, "{}"),
      405,
      "method_not_allowed",
      /PUT/,
    ],
    ["TRACE", () => raw("TRACE", "/trpc/runs.get", { host: host() }), 405, "method_not_allowed", /TRACE/],
    [
      "a CORS preflight",
      () => raw("OPTIONS", "/api/v1/sessions/bad-1/runs", { host: host(), origin: `http://${host()}` }),
      405,
      "method_not_allowed",
      /OPTIONS/,
    ],
    [
      "an oversize body",
      () =>
        post("/api/v1/sessions/bad-1/runs", {
          input: { steps: [{ type: "output", value: "x".repeat(5000) }] },
        }),
      413,
      "payload_too_large",
      /4096 bytes/,
    ],
    [
      "an unknown run id",
      () => t.client.get<ErrorBody>("/api/v1/runs/run_01KB0000000000000000000000"),
      404,
      "run_not_found",
      /no run/,
    ],
    [
      "a malformed run id",
      () => t.client.get<ErrorBody>("/api/v1/runs/42"),
      400,
      "invalid_request",
      /run id/,
    ],
    [
      "cancel of an unknown run",
      () => post("/api/v1/runs/run_01KB0000000000000000000000/cancel", {}),
      404,
      "run_not_found",
      /no run/,
    ],
    ["an unknown path", () => t.client.get<ErrorBody>("/api/v1/nothing"), 404, "not_found", /no route/],
    [
      "a wrong method",
      () => t.client.request<ErrorBody>("DELETE", "/api/v1/runs/run_01KB0000000000000000000000"),
      405,
      "method_not_allowed",
      /DELETE/,
    ],
    [
      "a bad page size",
      () => t.client.get<ErrorBody>("/api/v1/sessions/bad-1/runs?limit=0"),
      400,
      "invalid_request",
      /limit/,
    ],
  ];

  it.each(cases)("%s", async (_name, call, status, code, message) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toMatch(message);
  });

  it("wrote nothing for any of them, and still serves", async () => {
    expect((await t.oah.listRuns("bad-1")).items).toEqual([]);
    const metrics = await fetch(`${t.api.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^oah_runs_submitted_total 0$/m);
    const { run } = await t.oah.submit("good-1", { input: { steps: [] } });
    expect(run.status).toBe("queued");
  });

  it("answers tRPC the same way, with the same codes", async () => {
    const res = await fetch(`${t.api.url}/trpc/runs.submit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId: "bad-2", input: { steps: [{ type: "teleport" }] } }),
    });
    const body = (await res.json()) as {
      error: { message: string; data: { errorCode: string; httpStatus: number } };
    };
    expect(res.status).toBe(400);
    expect(body.error.data).toMatchObject({ errorCode: "invalid_request", httpStatus: 400 });
    expect(body.error.message).toMatch(/unknown step type "teleport"/);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.js/); // no stack traces in answers

    const missing = await fetch(
      `${t.api.url}/trpc/runs.get?input=${encodeURIComponent(JSON.stringify({ runId: "run_01KB0000000000000000000000" }))}`,
    );
    const missingBody = (await missing.json()) as { error: { data: { errorCode: string } } };
    expect(missing.status).toBe(404);
    expect(missingBody.error.data.errorCode).toBe("run_not_found");
    expect((await t.oah.listRuns("bad-2")).items).toEqual([]);
  });
});
