import { createServer, type Server } from "node:http";
import type { NamedToken } from "@oah/core";
import type { Logger } from "@oah/engine";
import { bearerAuthOf } from "./bearer-auth";
import { answerClientError } from "./client-errors";
import { type ProbeOptions, serveProbe, viewerRefusal } from "./probes";
import { sendJson } from "./respond";
import { boundServer, discardUnreadBody } from "./server-bounds";

export interface ProbeServerOptions {
  metrics: ProbeOptions["metrics"];
  /** The tokens of /metrics and the documents; none: open (loopback). */
  apiTokens: readonly NamedToken[];
  isReady: () => Promise<boolean>;
  /** Whether the process runs commands of runs (a worker host), told in /readyz. */
  commands?: ProbeOptions["commands"];
  logger: Logger;
  /** What the process is, in the 404 of other paths. */
  role?: string;
  /** JSON documents served beside the probes (the controller's /snapshot), for viewers and up like /metrics. */
  documents?: Record<string, () => Promise<unknown>>;
}

/** The server of a process without the API (a sandbox, the controller): its probes, metrics and documents. */
export function createProbeServer(options: ProbeServerOptions): Server {
  const { metrics, isReady, logger, documents = {} } = options;
  const auth = bearerAuthOf(options.apiTokens);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    serveProbe(req, res, path, { metrics, auth, isReady, commands: options.commands })
      .then(async (status) => {
        if (status !== null) return;
        const document = Object.hasOwn(documents, path) ? documents[path] : undefined;
        if (!document) {
          const message = `${options.role ?? "a sandbox"} serves only its probes${Object.keys(documents)
            .map((d) => `, ${d}`)
            .join("")}`;
          sendJson(res, 404, { error: { code: "not_found", message } });
          return;
        }
        const refusal = viewerRefusal(auth, req, path);
        if (refusal) {
          sendJson(res, refusal.status, refusal.body, refusal.headers);
          return;
        }
        sendJson(res, 200, await document());
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, "probe failed");
        if (!res.headersSent) res.writeHead(500);
        res.end();
      })
      .finally(() => discardUnreadBody(req));
  });
  server.on("clientError", answerClientError);
  boundServer(server);
  return server;
}
