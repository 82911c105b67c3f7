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
 * A shell command (for a step) that tries each `name → host:port` with a 3 s budget and prints
 * one line per target, sorted: `name 200` (an HTTP status) where an HTTP server answered,
 * `name connected` where something else accepted the connection (Redis, PostgreSQL), else
 * `name <error code>` (ECONNREFUSED, EACCES: a route that refuses, ETIMEDOUT…). It needs only
 * Node.js on the step's PATH.
 */
export function reachabilityProbe(targets: Record<string, { host: string; port: number }>): string {
  const script = `
    const net = require("node:net");
    const targets = ${JSON.stringify(targets)};
    Promise.all(Object.entries(targets).map(([name, t]) => new Promise((done) => {
      const socket = net.connect(t.port, t.host);
      let said = "";
      const end = (result) => { socket.destroy(); done(name + " " + result); };
      socket.setTimeout(3000, () => end(said ? "connected" : "ETIMEDOUT"));
      socket.on("connect", () => {
        socket.write("GET / HTTP/1.0\\r\\nHost: probe\\r\\n\\r\\n");
        setTimeout(() => end("connected"), 1000);
      });
      socket.on("data", (chunk) => {
        said += chunk;
        const status = /^HTTP\\/1\\.[01] (\\d{3})/.exec(said);
        end(status ? status[1] : "connected");
      });
      socket.on("error", (e) => end(said ? "connected" : e.code || e.message));
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
