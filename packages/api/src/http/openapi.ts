import { API_ERROR_STATUS } from "@oah/core";
import { z } from "zod";
import { appRouter } from "../root";
import type { HttpRoute } from "./routes";

/** The tRPC procedure an HTTP route calls and the input it passes, found by calling it on a recorder. */
export interface RouteCall {
  procedure: string;
  input: Record<string, unknown>;
}

/**
 * Which procedure a route calls, and with what: its `call` made on a caller that only records,
 * with each path parameter standing as `{name}`. The route table stays the one definition; a
 * route that calls no procedure (this document) answers null.
 */
export function routeCall(route: HttpRoute): RouteCall | null {
  let recorded: RouteCall | null = null;
  const recorder = (path: string[]): unknown =>
    new Proxy(() => {}, {
      get: (_target, key) => recorder([...path, String(key)]),
      apply: (_target, _this, args: unknown[]) => {
        recorded = { procedure: path.join("."), input: (args[0] ?? {}) as Record<string, unknown> };
        return Promise.resolve({});
      },
    });
  const params = Object.fromEntries(paramsOf(route.path).map((name) => [name, `{${name}}`]));
  void route.call(recorder([]) as never, { params, query: {}, body: {} });
  return recorded;
}

const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  [key: string]: unknown;
};

function inputSchema(procedure: string): JsonSchema | null {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def
    .procedures;
  const found = procedures[procedure] as { _def: { inputs: z.ZodType[] } } | undefined;
  const parser = found?._def.inputs[0];
  if (!parser) return null;
  const { $schema: _, ...schema } = z.toJSONSchema(parser, {
    io: "input",
    unrepresentable: "any",
  }) as JsonSchema;
  return schema;
}

/** The alternatives of a union (a script or an agent submission), or the schema itself. */
const alternatives = (schema: JsonSchema): JsonSchema[] =>
  (schema.oneOf as JsonSchema[] | undefined) ?? (schema.anyOf as JsonSchema[] | undefined) ?? [schema];

/** A member's schema, from the first alternative that has it. */
const memberOf = (schema: JsonSchema, name: string): JsonSchema | undefined =>
  alternatives(schema).find((a) => a.properties?.[name])?.properties?.[name];

/** The schema without the members the path gives. */
function without(schema: JsonSchema, names: readonly string[]): JsonSchema {
  if (schema.oneOf) return { ...schema, oneOf: (schema.oneOf as JsonSchema[]).map((a) => without(a, names)) };
  if (!schema.properties) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).filter(([k]) => !names.includes(k)),
  );
  const required = (schema.required ?? []).filter((k) => !names.includes(k));
  return { ...schema, properties, ...(required.length > 0 ? { required } : { required: undefined }) };
}

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(API_ERROR_STATUS) },
        message: { type: "string" },
        issues: {
          type: "array",
          items: {
            type: "object",
            properties: { path: { type: "string" }, message: { type: "string" } },
          },
        },
      },
    },
  },
};

function operation(route: HttpRoute) {
  const call = routeCall(route);
  const pathParams = paramsOf(route.path);
  const schema = call ? inputSchema(call.procedure) : null;
  const own = schema ? without(schema, pathParams) : null;
  const parameters = [
    ...pathParams.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: (schema && memberOf(schema, name)) ?? { type: "string" },
    })),
    // A GET's input is its query; lists are comma-separated (form style, not exploded).
    ...(route.method === "GET" && own?.properties
      ? Object.entries(own.properties).map(([name, s]) => ({
          name,
          in: "query",
          required: own.required?.includes(name) ?? false,
          schema: s,
          ...(s.type === "array" ? { style: "form", explode: false } : {}),
        }))
      : []),
  ];
  const success = typeof route.status === "number" ? String(route.status) : "2XX";
  return {
    ...(call ? { operationId: call.procedure } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.method === "POST" && own
      ? { requestBody: { required: true, content: { "application/json": { schema: own } } } }
      : {}),
    responses: {
      [success]: { description: "success", content: { "application/json": { schema: {} } } },
      "4XX": {
        description: "refused",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
      "5XX": {
        description: "failed",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    },
  };
}

/** Where the document is served (to any caller the API lets in). */
export const OPENAPI_PATH = "/api/v1/openapi.json";

/**
 * The OpenAPI 3.1 document of the HTTP API (docs/spec.md §12), made from the route table and
 * the zod schemas of the procedures it calls: no hand-written twin to drift.
 */
export function openApiDocument(routes: readonly HttpRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {
    [OPENAPI_PATH]: {
      get: { summary: "this document", responses: { "200": { description: "the OpenAPI document" } } },
    },
  };
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "oah API",
      version: "1",
      description:
        "Runs, sessions, storage admin, bulk actions and the fleet of oah; tRPC at /trpc serves the same procedures.",
    },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Error: ERROR_SCHEMA },
    },
    paths,
  };
}
