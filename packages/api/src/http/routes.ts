import type { SubmitRunResult } from "@oah/contract";
import { OahError } from "@oah/core";
import type { ApiCaller } from "../root";

export interface HttpRequestParts {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  /** The `Last-Event-ID` header of a stream's request (a reconnecting EventSource sends it). */
  lastEventId?: string;
}

export interface HttpRoute {
  method: "GET" | "POST";
  /** `:name` segments become params. */
  path: string;
  /** The status of a success, or how the procedure's result decides it. */
  status: number | ((result: never) => number);
  /** Which tRPC procedure answers, and how the request becomes its input. Validation is the procedure's. */
  call(caller: ApiCaller, request: HttpRequestParts): Promise<unknown>;
  /** Asked with `Accept: text/event-stream`: the subscription that answers as Server-Sent Events. */
  stream?(caller: ApiCaller, request: HttpRequestParts): Promise<AsyncIterable<unknown>>;
}

/** A stream's input: `?after=`, or the `Last-Event-ID` header, which wins as a reconnect's latest. */
const streamFrom = (r: HttpRequestParts) => ({
  ...r.query,
  ...(r.lastEventId === undefined ? {} : { lastEventId: r.lastEventId }),
});

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new OahError("invalid_request", "the request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/**
 * The HTTP paths of docs/spec.md §12, each served by the tRPC procedure of the same name.
 * Requests reach the procedures as they came (`as never`): the procedure's zod
 * schema is the one and only validation of both protocols.
 */
export const HTTP_ROUTES: HttpRoute[] = [
  {
    method: "POST",
    path: "/api/v1/sessions/:sessionId/runs",
    // A repeated idempotency key answers with the run it made the first time; a steering
    // submission's message is accepted as a new run would be.
    status: (result: SubmitRunResult) => (result.created || result.steered ? 202 : 200),
    call: (c, r) => c.runs.submit({ ...objectBody(r.body), sessionId: r.params.sessionId! } as never),
  },
  {
    method: "GET",
    path: "/api/v1/sessions/:sessionId/runs",
    status: 200,
    call: (c, r) => c.runs.listBySession({ ...r.query, sessionId: r.params.sessionId! } as never),
  },
  {
    method: "GET",
    path: "/api/v1/sessions/:sessionId/events",
    status: 200,
    call: (c, r) => c.sessions.events({ ...r.query, sessionId: r.params.sessionId! } as never),
    stream: (c, r) => c.sessions.onEvents({ ...streamFrom(r), sessionId: r.params.sessionId! } as never),
  },
  {
    method: "GET",
    path: "/api/v1/sessions/:sessionId/inspect",
    status: 200,
    call: (c, r) => c.admin.inspectSession({ ...r.query, sessionId: r.params.sessionId! }),
  },
  {
    method: "POST",
    path: "/api/v1/sessions/:sessionId/cancel-queued",
    status: 200,
    call: (c, r) => c.admin.cancelQueued({ ...objectBody(r.body), sessionId: r.params.sessionId! } as never),
  },
  {
    method: "GET",
    path: "/api/v1/health/jams",
    status: 200,
    call: (c) => c.admin.jams(),
  },
  {
    method: "POST",
    path: "/api/v1/health/jams/:kind/repair",
    status: 200,
    call: (c, r) => c.admin.repairJams({ ...objectBody(r.body), kind: r.params.kind! } as never),
  },
  {
    method: "GET",
    path: "/api/v1/runs/:runId",
    status: 200,
    call: (c, r) => c.runs.get({ ...r.query, runId: r.params.runId! }),
  },
  {
    method: "GET",
    path: "/api/v1/runs/:runId/events",
    status: 200,
    call: (c, r) => c.runs.events({ ...r.query, runId: r.params.runId! } as never),
    stream: (c, r) => c.runs.onEvents({ ...streamFrom(r), runId: r.params.runId! } as never),
  },
  {
    method: "GET",
    path: "/api/v1/runs/:runId/steps",
    status: 200,
    call: (c, r) => c.runs.steps({ ...r.query, runId: r.params.runId! }),
  },
  {
    method: "GET",
    path: "/api/v1/runs/:runId/checkpoints",
    status: 200,
    call: (c, r) => c.runs.checkpoints({ ...r.query, runId: r.params.runId! }),
  },
  {
    method: "POST",
    path: "/api/v1/runs/:runId/fork",
    status: 202,
    call: (c, r) => c.runs.fork({ ...objectBody(r.body), runId: r.params.runId! } as never),
  },
  {
    method: "POST",
    path: "/api/v1/runs/:runId/messages",
    status: 202,
    call: (c, r) => c.runs.message({ ...objectBody(r.body), runId: r.params.runId! } as never),
  },
  {
    method: "POST",
    path: "/api/v1/runs/:runId/cancel",
    status: 202,
    call: (c, r) => c.runs.cancel({ ...objectBody(r.body), runId: r.params.runId! }),
  },
  {
    method: "POST",
    path: "/api/v1/runs/:runId/interrupt",
    status: 202,
    call: (c, r) => c.runs.interrupt({ ...objectBody(r.body), runId: r.params.runId! }),
  },
  {
    method: "POST",
    path: "/api/v1/runs/:runId/tool-results",
    status: 202,
    call: (c, r) => c.runs.submitToolResult({ ...objectBody(r.body), runId: r.params.runId! } as never),
  },
  {
    method: "POST",
    path: "/api/v1/runs/:runId/requeue",
    status: 202,
    call: (c, r) => c.admin.requeue({ ...objectBody(r.body), runId: r.params.runId! }),
  },
  {
    method: "POST",
    path: "/api/v1/runs/batch",
    // As a single submission: accepted when anything was made, else every run was there already.
    status: (result: { items: Partial<SubmitRunResult>[] }) =>
      result.items.some((i) => i.created || i.steered) ? 202 : 200,
    call: (c, r) => c.runs.submitMany(objectBody(r.body) as never),
  },
  {
    method: "POST",
    path: "/api/v1/runs/requeue",
    status: 200,
    call: (c, r) => c.admin.requeueMany(objectBody(r.body) as never),
  },
  {
    method: "GET",
    path: "/api/v1/storage/runs",
    status: 200,
    call: (c, r) => c.admin.runs(r.query as never),
  },
  {
    method: "GET",
    path: "/api/v1/storage/overview",
    status: 200,
    call: (c) => c.admin.overview(),
  },
  {
    method: "GET",
    path: "/api/v1/storage/dead-letters",
    status: 200,
    call: (c, r) => c.admin.deadLetters(r.query as never),
  },
  {
    method: "GET",
    path: "/api/v1/usage",
    status: 200,
    call: (c, r) => c.admin.modelUsage(r.query as never),
  },
  {
    method: "GET",
    path: "/api/v1/pool",
    status: 200,
    call: (c) => c.admin.pool(),
  },
  {
    method: "POST",
    path: "/api/v1/bulk-actions",
    // A dry run answers at once; a job is accepted and goes on.
    status: (result: object) => ("job" in result ? 202 : 200),
    call: (c, r) => c.admin.bulkAction(objectBody(r.body) as never),
  },
  {
    method: "GET",
    path: "/api/v1/bulk-actions",
    status: 200,
    call: (c, r) => c.admin.bulkActions(r.query as never),
  },
  {
    method: "GET",
    path: "/api/v1/bulk-actions/:id",
    status: 200,
    call: (c, r) => c.admin.bulkActionGet({ id: r.params.id! }),
  },
  {
    method: "GET",
    path: "/api/v1/bulk-actions/:id/items",
    status: 200,
    call: (c, r) => c.admin.bulkActionItems({ ...r.query, id: r.params.id! } as never),
  },
  {
    method: "POST",
    path: "/api/v1/bulk-actions/:id/abort",
    status: 200,
    call: (c, r) => c.admin.bulkActionAbort({ id: r.params.id! }),
  },
  {
    method: "GET",
    path: "/api/v1/audit",
    status: 200,
    call: (c, r) => c.admin.audit(r.query as never),
  },
  {
    method: "GET",
    path: "/api/v1/auth/whoami",
    status: 200,
    call: (c) => c.auth.whoami(),
  },
  {
    method: "POST",
    path: "/api/v1/hosts/:hostId/cordon",
    status: 202,
    call: (c, r) => c.fleet.cordon({ hostId: r.params.hostId! }),
  },
  {
    method: "POST",
    path: "/api/v1/hosts/:hostId/uncordon",
    status: 202,
    call: (c, r) => c.fleet.uncordon({ hostId: r.params.hostId! }),
  },
  {
    method: "POST",
    path: "/api/v1/hosts/:hostId/drain",
    status: 202,
    call: (c, r) => c.fleet.drain({ hostId: r.params.hostId! }),
  },
  {
    method: "POST",
    path: "/api/v1/fleet/rollout",
    status: 202,
    call: (c, r) => c.fleet.rollout(objectBody(r.body) as never),
  },
  {
    method: "GET",
    path: "/api/v1/fleet/rollout/:rolloutId",
    status: 200,
    call: (c, r) => c.fleet.rolloutProgress({ rolloutId: r.params.rolloutId! }),
  },
];

interface CompiledRoute {
  route: HttpRoute;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = HTTP_ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
});

export type RouteMatch =
  | { kind: "route"; route: HttpRoute; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: string[] }
  | { kind: "none" };

export function matchRoute(method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  for (const { route, pattern, names } of compiled) {
    const m = pattern.exec(pathname);
    if (!m) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    let params: Record<string, string>;
    try {
      params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    } catch {
      throw new OahError("invalid_request", "the request path is not valid URL encoding");
    }
    return { kind: "route", route, params };
  }
  return allowed.length > 0 ? { kind: "method_not_allowed", allowed } : { kind: "none" };
}
