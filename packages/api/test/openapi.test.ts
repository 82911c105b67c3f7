// @module-tag unit

import { describe, expect, it } from "vitest";
import { HTTP_ROUTES, openApiDocument, routeCall } from "../src";

type Operation = {
  operationId?: string;
  parameters?: {
    name: string;
    in: string;
    required: boolean;
    schema: Record<string, unknown>;
    style?: string;
  }[];
  requestBody?: { content: { "application/json": { schema: { properties?: Record<string, unknown> } } } };
  responses: Record<string, unknown>;
};

describe("the OpenAPI document", () => {
  const doc = openApiDocument(HTTP_ROUTES);
  const op = (method: string, path: string) =>
    (doc.paths[path] as Record<string, Operation> | undefined)?.[method] as Operation;

  it("has every route of the table once, and nothing else", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const routes = HTTP_ROUTES.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`);
    routes.push("GET /api/v1/openapi.json");
    expect(documented.sort()).toEqual([...new Set(routes)].sort());
    expect(routes).toHaveLength(new Set(routes).size);
    expect(HTTP_ROUTES.every((r) => routeCall(r) !== null)).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("names each route's procedure, and its inputs from that procedure's zod schema", () => {
    for (const route of HTTP_ROUTES) {
      const call = routeCall(route);
      const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
      expect(op(route.method.toLowerCase(), path).operationId).toBe(call?.procedure);
    }
    const submit = op("post", "/api/v1/sessions/{sessionId}/runs");
    expect(submit.operationId).toBe("runs.submit");
    expect(submit.parameters).toEqual([
      expect.objectContaining({
        name: "sessionId",
        in: "path",
        required: true,
        schema: expect.objectContaining({ pattern: expect.any(String) }),
      }),
    ]);
    expect(JSON.stringify(submit.requestBody)).toContain("idempotencyKey");
    // The busy-session policies, with their default (docs/spec.md §5).
    const ifBusy = JSON.stringify(submit.requestBody).match(
      /"ifBusy":\{"default":"enqueue",[^}]*"enum":\[([^\]]*)\]/,
    );
    expect(ifBusy?.[1]).toContain('"enqueue","reject","interrupt","replace"');
    expect(JSON.stringify(submit.requestBody)).not.toContain('"sessionId"');

    const list = op("get", "/api/v1/storage/runs");
    const status = list.parameters!.find((p) => p.name === "status")!;
    expect(status).toMatchObject({ in: "query", required: false, style: "form", schema: { type: "array" } });
    expect(list.parameters!.map((p) => p.name)).toContain("recoveryReason");
    expect(
      op("post", "/api/v1/runs/batch").requestBody!.content["application/json"].schema.properties,
    ).toHaveProperty("runs");
  });

  it("says which status a route answers, and the error body of a refusal", () => {
    expect(Object.keys(op("post", "/api/v1/runs/{runId}/cancel").responses)).toEqual(["202", "4XX", "5XX"]);
    expect(Object.keys(op("post", "/api/v1/bulk-actions").responses)[0]).toBe("2XX");
    expect(JSON.stringify(doc.components.schemas.Error)).toContain("idempotency_key_conflict");
  });
});
