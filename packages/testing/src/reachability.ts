import { type ChildProcess, spawn } from "node:child_process";
import { inNamespace } from "./network-namespaces";

/** An HTTP server that answers 200 to everything, in a network namespace (a host of "the internet") or on this one. */
export interface StandInServer {
  address: string;
  port: number;
  stop(): Promise<void>;
}

const SERVER = `
  const server = require("node:http").createServer((req, res) => res.end("reached\\n"));
  server.listen(Number(process.argv[2]), process.argv[1], () => console.log(server.address().port));
`;

/** Starts a stand-in server listening on `address` (0: any port), inside `namespace` when given. */
export function startStandInServer(address: string, namespace?: string, port = 0): Promise<StandInServer> {
  const [command, ...args] = inNamespace(namespace, [process.execPath, "-e", SERVER, address, String(port)]);
  const child: ChildProcess = spawn(command!, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let output = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the stand-in server on ${address} exited (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes("\n")) return;
      child.removeAllListeners("exit");
      resolve({
        address,
        port: Number(output.trim()),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGKILL");
          }),
      });
    });
  });
}

/**
 * A shell command (for a step) that tries each `name → host:port` over HTTP with a 3 s budget and
 * prints one line per target: `name 200` when an HTTP answer came, else `name <error code>`.
 * It needs only Node.js on the step's PATH.
 */
export function reachabilityProbe(targets: Record<string, { host: string; port: number }>): string {
  const script = `
    const http = require("node:http");
    const targets = ${JSON.stringify(targets)};
    Promise.all(Object.entries(targets).map(([name, t]) => new Promise((done) => {
      const req = http.get({ host: t.host, port: t.port, path: "/", timeout: 3000 }, (res) => {
        res.resume(); done(name + " " + res.statusCode);
      });
      req.on("timeout", () => { req.destroy(); done(name + " ETIMEDOUT"); });
      req.on("error", (e) => done(name + " " + (e.code || e.message)));
    }))).then((lines) => console.log(lines.sort().join("\\n")));
  `;
  return `node -e '${script.replace(/'/g, "'\\''")}'`;
}

/** reachabilityProbe's output as `{name: "200" | error code}`. */
export function parseReachability(output: string): Record<string, string> {
  return Object.fromEntries(
    output
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" ") as [string, string]),
  );
}
