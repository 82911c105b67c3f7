import { createServer, type Server } from "node:http";
import type { Logger } from "@oah/engine";
import { BearerAuth } from "./bearer-auth";
import { answerClientError } from "./client-errors";
import { type ProbeOptions, serveProbe } from "./probes";
import { sendJson } from "./respond";
import { boundServer, discardUnreadBody } from "./server-bounds";

export interface ProbeServerOptions {
  metrics: ProbeOptions["metrics"];
  apiToken: string | undefined;
  isReady: () => Promise<boolean>;
  logger: Logger;
}

/** The server of a host without the API (a sandbox): its probes and metrics, nothing else. */
export function createProbeServer(options: ProbeServerOptions): Server {
  const { metrics, isReady, logger } = options;
  const auth = options.apiToken ? new BearerAuth(options.apiToken) : null;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    serveProbe(req, res, path, { metrics, auth, isReady })
      .then((status) => {
        if (status !== null) return;
        sendJson(res, 404, { error: { code: "not_found", message: "a sandbox serves only its probes" } });
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
