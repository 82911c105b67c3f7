import {
  hostOrderInput,
  listRunEventsInput,
  listSessionEventsInput,
  listSessionRunsInput,
  listStorageRunsInput,
  requeueManyInput,
  requeueRunInput,
  rolloutIdInput,
  rolloutInput,
  runRefInput,
  submitRunInput,
  submitToolResultInput,
} from "@oah/contract";
import fc from "fast-check";
import type { z } from "zod";
import { anyJson, arbitraryOf } from "./arbitraries";
import { rawRequest } from "./http";

type Input = Record<string, unknown>;

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** One door of the API: its input schema, how an input becomes a request, and what the procedure then receives. */
export interface FuzzTarget {
  name: string;
  schema: z.ZodType | null;
  call(input: Input): Call;
  /** The input as the procedure gets it from that request (path and query values are text). */
  seen(input: Input): unknown;
}

/** Percent-encoded for a URL, which has no way to say a lone surrogate: such a half becomes U+FFFD. */
const enc = (text: string) =>
  encodeURIComponent(
    text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"),
  );
/** A value as text in a path or a query: lists comma-separated, objects as JSON. */
const asText = (value: unknown): string =>
  Array.isArray(value)
    ? value.map(asText).join(",")
    : typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value);

/**
 * An HTTP path of the API: `:params` of the template come from the input, the rest goes
 * in the query (GET, lists comma-separated) or the JSON body (POST).
 */
function httpTarget(method: "GET" | "POST", template: string, schema: z.ZodType | null): FuzzTarget {
  const params = [...template.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const split = (input: Input) => {
    const rest = Object.fromEntries(
      Object.entries(input).filter(([k, v]) => !params.includes(k) && v !== undefined),
    );
    const path = template.replace(/:(\w+)/g, (_, name: string) => enc(asText(input[name])));
    return { path, rest };
  };
  return {
    name: `${method} ${template}`,
    schema,
    call: (input) => {
      const { path, rest } = split(input);
      if (method === "POST") return { method, path, body: rest };
      const query = new URLSearchParams(
        Object.entries(rest).map(([k, v]): [string, string] => [k, asText(v)]),
      ).toString();
      return { method, path: query ? `${path}?${query}` : path };
    },
    seen: (input) => {
      const { rest } = split(input);
      const fromPath = Object.fromEntries(params.map((name) => [name, asText(input[name])]));
      const fromRest =
        method === "POST"
          ? JSON.parse(JSON.stringify(rest))
          : Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, asText(v)]));
      return { ...fromRest, ...fromPath };
    },
  };
}

/** Every HTTP path of the API (docs/spec.md §12), each with the schema of the procedure behind it. */
const HTTP_TARGETS: FuzzTarget[] = [
  httpTarget("POST", "/api/v1/sessions/:sessionId/runs", submitRunInput),
  httpTarget("GET", "/api/v1/sessions/:sessionId/runs", listSessionRunsInput),
  httpTarget("GET", "/api/v1/sessions/:sessionId/events", listSessionEventsInput),
  httpTarget("GET", "/api/v1/runs/:runId", runRefInput),
  httpTarget("GET", "/api/v1/runs/:runId/events", listRunEventsInput),
  httpTarget("GET", "/api/v1/runs/:runId/steps", runRefInput),
  httpTarget("POST", "/api/v1/runs/:runId/cancel", runRefInput),
  httpTarget("POST", "/api/v1/runs/:runId/tool-results", submitToolResultInput),
  httpTarget("POST", "/api/v1/runs/:runId/requeue", requeueRunInput),
  httpTarget("POST", "/api/v1/runs/requeue", requeueManyInput),
  httpTarget("GET", "/api/v1/storage/runs", listStorageRunsInput),
  httpTarget("GET", "/api/v1/storage/overview", null),
  httpTarget("GET", "/api/v1/pool", null),
  httpTarget("POST", "/api/v1/hosts/:hostId/cordon", hostOrderInput),
  httpTarget("POST", "/api/v1/hosts/:hostId/uncordon", hostOrderInput),
  httpTarget("POST", "/api/v1/hosts/:hostId/drain", hostOrderInput),
  httpTarget("POST", "/api/v1/fleet/rollout", rolloutInput),
  httpTarget("GET", "/api/v1/fleet/rollout/:rolloutId", rolloutIdInput),
];

/** Every tRPC procedure: queries by GET `?input=`, mutations by POST. */
const PROCEDURES: [name: string, kind: "query" | "mutation", schema: z.ZodType | null][] = [
  ["runs.submit", "mutation", submitRunInput],
  ["runs.get", "query", runRefInput],
  ["runs.listBySession", "query", listSessionRunsInput],
  ["runs.events", "query", listRunEventsInput],
  ["runs.steps", "query", runRefInput],
  ["sessions.events", "query", listSessionEventsInput],
  ["runs.cancel", "mutation", runRefInput],
  ["runs.submitToolResult", "mutation", submitToolResultInput],
  ["admin.runs", "query", listStorageRunsInput],
  ["admin.overview", "query", null],
  ["admin.requeue", "mutation", requeueRunInput],
  ["admin.requeueMany", "mutation", requeueManyInput],
  ["admin.pool", "query", null],
  ["fleet.cordon", "mutation", hostOrderInput],
  ["fleet.uncordon", "mutation", hostOrderInput],
  ["fleet.drain", "mutation", hostOrderInput],
  ["fleet.rollout", "mutation", rolloutInput],
  ["fleet.rolloutProgress", "query", rolloutIdInput],
];

const TRPC_TARGETS: FuzzTarget[] = PROCEDURES.map(([name, kind, schema]) => ({
  name: `tRPC ${name}`,
  schema,
  call: (input) =>
    kind === "query"
      ? { method: "GET", path: `/trpc/${name}${schema ? `?input=${enc(JSON.stringify(input))}` : ""}` }
      : { method: "POST", path: `/trpc/${name}`, body: input },
  seen: (input) => JSON.parse(JSON.stringify(input)),
}));

export const FUZZ_TARGETS: FuzzTarget[] = [...HTTP_TARGETS, ...TRPC_TARGETS];

/**
 * Inputs a schema refuses, made from ones it accepts, as a careless or hostile client
 * makes them: a required field dropped, a field of the wrong kind or a nonsense value,
 * an unknown field, or anything at all. Only those the schema really refuses are kept.
 */
function invalidOf(target: FuzzTarget, schema: z.ZodType): fc.Arbitrary<unknown> {
  // Any text at all (NUL, lone surrogates, controls), numbers of every kind, nested junk.
  const junk = fc.oneof(
    anyJson(),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.string({ maxLength: 300 }),
    fc.oneof(fc.integer(), fc.double(), fc.constant(-0)),
    fc.dictionary(fc.string({ unit: "binary", maxLength: 8 }), fc.string({ unit: "binary", maxLength: 8 }), {
      maxKeys: 3,
    }),
    fc.constant(null),
  );
  const broken = fc
    .tuple(arbitraryOf(schema), fc.nat(), junk, fc.constantFrom("drop", "replace", "add"))
    .map(([valid, pick, value, how]) => {
      const input = { ...(valid as Input) };
      const keys = Object.keys(input);
      const key = keys[pick % Math.max(1, keys.length)];
      if (how === "drop" && key) delete input[key];
      else if (how === "replace" && key) input[key] = value;
      else input[`unknown${pick % 7}`] = value;
      return input;
    });
  const inputs = fc.oneof(
    broken,
    junk.map((value) => ({ value })),
  );
  return inputs.filter((input) => !schema.safeParse(target.seen(input)).success);
}

export interface FuzzOptions {
  /** The API under test (a token-less one on loopback: requests carry its Host). */
  url: string;
  /** Cases per target and property. */
  runs: number;
  seed: number;
}

export interface FuzzFinding {
  target: string;
  property: string;
  counterexample: string;
}

async function send(url: string, call: Call) {
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const res = await rawRequest(`${url}${call.path}`, {
    method: call.method,
    headers: {
      host: new URL(url).host,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body,
  });
  return res.status;
}

async function runCount(url: string): Promise<number> {
  const res = await rawRequest(`${url}/api/v1/storage/overview`, { headers: { host: new URL(url).host } });
  const counts = (JSON.parse(res.text) as { statusCounts: Record<string, number> }).statusCounts;
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/**
 * Property tests of every HTTP path and tRPC procedure, from their zod schemas: what a
 * schema accepts is answered below 500 (accepted, or refused with a 4xx: a run that does
 * not exist, a requeue it refuses); what it refuses is a 4xx and writes nothing; and the
 * server is ready afterwards. Resolves with what failed (nothing, when all is well).
 */
export async function fuzzApi(options: FuzzOptions): Promise<FuzzFinding[]> {
  const findings: FuzzFinding[] = [];
  const check = async (
    target: FuzzTarget,
    property: string,
    arbitrary: fc.Arbitrary<unknown>,
    ok: (input: Input) => Promise<boolean>,
  ) => {
    const result = await fc.check(
      fc.asyncProperty(arbitrary, async (input) => ok(input as Input)),
      { numRuns: options.runs, seed: options.seed, endOnFailure: true },
    );
    if (result.failed) {
      findings.push({
        target: target.name,
        property,
        counterexample: JSON.stringify(result.counterexample).slice(0, 2_000),
      });
    }
  };
  for (const target of FUZZ_TARGETS) {
    const valid = target.schema ? arbitraryOf(target.schema) : fc.constant({});
    await check(target, "an accepted input is answered below 500", valid, async (input) => {
      const status = await send(options.url, target.call(input));
      return status >= 200 && status < 500;
    });
    if (!target.schema) continue;
    await check(
      target,
      "a refused input is a 4xx and writes nothing",
      invalidOf(target, target.schema),
      async (input) => {
        const before = await runCount(options.url);
        const status = await send(options.url, target.call(input));
        return status >= 400 && status < 500 && (await runCount(options.url)) === before;
      },
    );
  }
  const ready = await rawRequest(`${options.url}/readyz`, { headers: { host: new URL(options.url).host } });
  if (ready.status !== 200)
    findings.push({ target: "/readyz", property: "ready afterwards", counterexample: ready.text });
  return findings;
}
