import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type Actor,
  LOCAL_ACTOR,
  type NamedToken,
  OahError,
  STREAM_RETRY_AFTER_SECONDS,
  type StreamCap,
  type StreamCaps,
  StreamSlots,
} from "@oah/core";
import type { Logger, RunEngine } from "@oah/engine";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { retryAfterOf } from "../errors";
import { appRouter, createCaller } from "../root";
import { type ApiContext, STREAM_KEEPALIVE_MS } from "../trpc";
import { bearerAuthOf } from "./bearer-auth";
import { readJsonBody } from "./body";
import { answerClientError } from "./client-errors";
import { serveEventStream, wantsEventStream } from "./event-stream";
import { OPENAPI_PATH, openApiDocument } from "./openapi";
import { authRefusal, type HttpMetrics, serveProbe } from "./probes";
import { bodyIsNotJson, originRefusal } from "./request-guard";
import { sendError, sendJson } from "./respond";
import { HTTP_ROUTES, matchRoute } from "./routes";
import { boundServer, discardUnreadBody } from "./server-bounds";

export interface ApiServerOptions {
  /** What the API asks of the engine. */
  engine: Pick<
    RunEngine,
    "commands" | "service" | "fleet" | "streams" | "audit" | "bulk" | "sessions" | "jams"
  >;
  metrics: HttpMetrics;
  logger: Logger;
  /** The tokens the API accepts, each with its name and role; none: loopback only, open to all. */
  apiTokens: readonly NamedToken[];
  maxBodyBytes: number;
  /** How often an idle event stream gets a keep-alive comment; STREAM_KEEPALIVE_MS (15 s) by default. */
  streamKeepAliveMs?: number;
  /** The most event streams held at once per token, per client address and in all (OAH_MAX_STREAMS*). */
  streamCaps: StreamCaps;
  /** Started, not draining, and the store answers: /readyz answers 200. */
  isReady: () => Promise<boolean>;
}

/** What a request came to, for its metrics: `untimed` for a stream, whose life is not a latency. */
interface RouteOutcome {
  route: string;
  status: number;
  untimed?: boolean;
}

/** The most calls one tRPC batch may hold; more is a 400. */
export const MAX_BATCH_SIZE = 10;

/** The tRPC procedures answered as streams: tRPC serves a subscription as SSE whatever the request accepts. */
const SUBSCRIPTIONS: ReadonlySet<string> = new Set(
  Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
    .filter(([, procedure]) => procedure._def.type === "subscription")
    .map(([path]) => path),
);

const STREAM_CAP_NAMES: Record<StreamCap, string> = {
  perCaller: "for this token (OAH_MAX_STREAMS_PER_TOKEN)",
  perAddress: "from this address (OAH_MAX_STREAMS_PER_ADDRESS)",
  total: "in all (OAH_MAX_STREAMS)",
};

/**
 * One HTTP server for the whole API: the HTTP paths of docs/spec.md §12 and tRPC at
 * /trpc, both answered by the same router, plus probes and metrics.
 */
export function createApiServer(options: ApiServerOptions): Server {
  const { engine, metrics, logger } = options;
  const auth = bearerAuthOf(options.apiTokens);
  /** The caller each request was let in as, for its tRPC context. */
  const actors = new WeakMap<IncomingMessage, Actor>();
  const contextOf = (actor: Actor): ApiContext => ({ ...engine, actor });
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: options.maxBodyBytes,
    // A batch is as much work as its calls: a few at a time (the console sends none).
    maxBatchSize: MAX_BATCH_SIZE,
    createContext: ({ req }) => contextOf(actors.get(req) ?? LOCAL_ACTOR),
    // A refusal that says when to come back (too many actions) says it as over HTTP.
    responseMeta: ({ errors }) => {
      const retryAfter = errors.map(retryAfterOf).find((seconds) => seconds !== null);
      return retryAfter === undefined ? {} : { headers: { "retry-after": String(retryAfter) } };
    },
  });

  let openApi: ReturnType<typeof openApiDocument> | undefined;
  const streams = new StreamSlots(options.streamCaps);

  /**
   * Takes an event stream's slot for this request until its answer ends; past a cap, answers
   * 429 `too_many_streams` and says false. The caller counts by its token's name, where there
   * are tokens (without, everyone is `local`: the address and the total still count).
   */
  function streamAdmitted(req: IncomingMessage, res: ServerResponse, actor: Actor): boolean {
    const slot = streams.take({
      ...(auth ? { caller: actor.name } : {}),
      address: req.socket.remoteAddress ?? "unknown",
    });
    if (!slot.ok) {
      const message = `${slot.limit} event streams are held ${STREAM_CAP_NAMES[slot.cap]}: close one, or retry in ${STREAM_RETRY_AFTER_SECONDS} s`;
      sendError(res, new OahError("too_many_streams", message), {
        "retry-after": String(STREAM_RETRY_AFTER_SECONDS),
      });
      return false;
    }
    res.once("close", slot.release);
    connections.holdsStream(req);
    return true;
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<RouteOutcome> {
    const path = url.pathname;
    const refused = (
      code: "forbidden_origin" | "unsupported_media_type" | "method_not_allowed",
      message: string,
    ) => ({ route: code, status: sendError(res, new OahError(code, message)) });
    const foreign = auth ? null : originRefusal(req.headers);
    if (foreign) return refused("forbidden_origin", foreign);
    if (req.method === "POST" && bodyIsNotJson(req.headers)) {
      return refused("unsupported_media_type", "the request body must be application/json");
    }
    const probe = await serveProbe(req, res, path, {
      metrics,
      auth,
      isReady: options.isReady,
      commands: engine.commands,
    });
    if (probe !== null) return { route: path, status: probe };
    const outcome = auth?.check(req) ?? { ok: true, actor: LOCAL_ACTOR };
    if (!outcome.ok) {
      const refusal = authRefusal(outcome);
      sendJson(res, refusal.status, refusal.body, refusal.headers);
      return { route: refusal.body.error.code, status: refusal.status };
    }
    actors.set(req, outcome.actor);
    const context = contextOf(outcome.actor);
    if (path.startsWith("/trpc/")) {
      if (req.method !== "GET" && req.method !== "POST") {
        const error = new OahError("method_not_allowed", `${req.method} is not allowed on ${path}`);
        return { route: "/trpc", status: sendError(res, error, { allow: "GET, POST" }) };
      }
      const subscription = SUBSCRIPTIONS.has(path.slice("/trpc/".length));
      if (subscription && !streamAdmitted(req, res, outcome.actor)) {
        return { route: "too_many_streams", status: 429 };
      }
      await trpc(req, res);
      return { route: "/trpc", status: res.statusCode, untimed: subscription };
    }
    if (req.method === "GET" && path === OPENAPI_PATH) {
      // Made once, from the route table: it never changes while the process lives.
      openApi ??= openApiDocument(HTTP_ROUTES);
      sendJson(res, 200, openApi);
      return { route: path, status: 200 };
    }
    const match = matchRoute(req.method ?? "GET", path);
    if (match.kind === "none") {
      return {
        route: "not_found",
        status: sendError(res, new OahError("not_found", `no route for ${path}`)),
      };
    }
    if (match.kind === "method_not_allowed") {
      // Labelled by the refusal, never by the path a client made up (metrics stay bounded).
      const error = new OahError("method_not_allowed", `${req.method} is not allowed on ${path}`);
      return {
        route: "method_not_allowed",
        status: sendError(res, error, { allow: match.allowed.join(", ") }),
      };
    }
    const { route } = match;
    if (route.stream && req.method === "GET" && wantsEventStream(req.headers)) {
      if (!streamAdmitted(req, res, outcome.actor)) return { route: "too_many_streams", status: 429 };
      // The stream's life is the request's: a client that goes away ends it.
      const closed = new AbortController();
      res.on("close", () => closed.abort());
      const lastEventId = req.headers["last-event-id"];
      const items = await route.stream(createCaller(context, { signal: closed.signal }), {
        params: match.params,
        query: Object.fromEntries(url.searchParams),
        body: undefined,
        ...(typeof lastEventId === "string" ? { lastEventId } : {}),
      });
      await serveEventStream(res, items, options.streamKeepAliveMs ?? STREAM_KEEPALIVE_MS, closed.signal);
      // Its life is not a request's latency: counted by oah_event_streams_open, not timed.
      return { route: `${route.path} (stream)`, status: 200, untimed: true };
    }
    const body = req.method === "POST" ? await readJsonBody(req, options.maxBodyBytes) : undefined;
    const query = Object.fromEntries(url.searchParams);
    const result = await route.call(createCaller(context), { params: match.params, query, body });
    const status = typeof route.status === "number" ? route.status : route.status(result as never);
    sendJson(res, status, result);
    return { route: route.path, status };
  }

  const server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? "/", "http://localhost");
    route(req, res, url)
      .catch((error: unknown): RouteOutcome => {
        const status = res.headersSent ? res.statusCode : sendError(res, error);
        if (status >= 500)
          logger.error({ err: error, method: req.method, path: url.pathname }, "request failed");
        return { route: "error", status };
      })
      .then((done) => {
        // A refusal left the body unread: take it in (and drop it) so that the client reads its answer.
        discardUnreadBody(req);
        const { status } = done;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        if (!done.untimed)
          metrics.httpRequest({ method: req.method ?? "GET", route: done.route, status }, seconds);
        const entry = { method: req.method, path: url.pathname, status, ms: Math.round(seconds * 1000) };
        if (status >= 500) logger.warn(entry, "request");
        else logger.debug(entry, "request");
      });
  });
  server.on("clientError", answerClientError);
  // Read by streamAdmitted, which runs only once the server serves.
  const connections = boundServer(server);
  return server;
}
