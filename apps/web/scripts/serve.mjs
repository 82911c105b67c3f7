// The console's own server: Next.js behind the rules the console keeps wherever it is
// started from (`npm start` at the root, `npm start -w @oah/web`, a test):
// - it refuses to listen on anything but loopback without OAH_API_TOKEN (anyone who can
//   reach it could drive the API);
// - without a token it answers only requests addressed to a loopback name, so that a page
//   that rebinds its own name to 127.0.0.1 gets nothing;
// - every answer carries the security headers below (no framing by another site, no
//   referrer, no content sniffing);
// - slow or endless clients are cut off (header, request and keep-alive timeouts) and the
//   number of connections is bounded.
// Usage: node scripts/serve.mjs [--dev]   (OAH_WEB_HOST, default 127.0.0.1; OAH_WEB_PORT, default 3000)
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import next from "next";

const dir = fileURLToPath(new URL("..", import.meta.url));
const dev = process.argv.includes("--dev");
const host = process.env.OAH_WEB_HOST?.trim() || "127.0.0.1";
const portText = process.env.OAH_WEB_PORT?.trim() || "3000";
const token = process.env.OAH_API_TOKEN?.trim();

const LOOPBACK_NAME = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1)$/i;

/** `127.0.0.1:3000` → `127.0.0.1`; `[::1]:3000` → `::1`. */
function hostNameOf(value) {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(value);
  return bracketed ? bracketed[1] : value.replace(/:\d*$/, "");
}

function refuse(message) {
  process.stderr.write(`console: ${message}\n`);
  process.exit(1);
}

if (!/^\d+$/.test(portText) || Number(portText) > 65_535)
  refuse(`OAH_WEB_PORT must be a port number, got "${portText}"`);
if (!LOOPBACK_NAME.test(hostNameOf(host)) && !token) {
  refuse(
    `refusing to listen on ${host} without OAH_API_TOKEN: anyone who reaches the console could drive the API. ` +
      "Set a token (operators then sign in with it) or listen on 127.0.0.1",
  );
}

// Pages script with inline bootstrap code of Next.js ('unsafe-inline'); nothing comes from elsewhere,
// and no other site may frame the console (its buttons requeue and cancel runs).
const SECURITY_HEADERS = {
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

const app = next({ dev, dir, hostname: host, port: Number(portText) });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  if (!token && !LOOPBACK_NAME.test(hostNameOf(req.headers.host ?? ""))) {
    res.writeHead(403, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end("Without OAH_API_TOKEN the console answers requests addressed to a loopback name only.\n");
    return;
  }
  // Who is asking, for the sign-in's slow-down: the connection's address, never what the client claims.
  req.headers["x-oah-client-address"] = req.socket.remoteAddress ?? "unknown";
  handle(req, res).catch((error) => {
    process.stderr.write(`console: ${error?.stack ?? error}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;
server.keepAliveTimeout = 5_000;
server.maxConnections = 1_000;

server.listen(Number(portText), host, () => {
  const { port } = server.address();
  const shown = host.includes(":") ? `[${host}]` : host;
  process.stdout.write(`console listening on http://${shown}:${port}\n`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
