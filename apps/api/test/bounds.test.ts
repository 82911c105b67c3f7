// @module-tag system

import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { createTempDir, type OahProcess, startOah } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Sends `body` (all of it, before reading anything) with Python's http.client; resolves with the status it got. */
function pythonPost(url: string, bytes: number): Promise<string> {
  const { hostname, port } = new URL(url);
  const script = [
    "import http.client, sys",
    `c = http.client.HTTPConnection("${hostname}", ${port}, timeout=30)`,
    `c.request("POST", "/api/v1/sessions/big/runs", body=b"x" * ${bytes}, headers={"content-type": "application/json"})`,
    "r = c.getresponse()",
    "print(r.status, r.read().decode())",
  ].join("\n");
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-c", script]);
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(err))));
  });
}

const closedAfter = (socket: Socket, started: number) =>
  new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now() - started)));

describe("the API's bounds", () => {
  const dir = createTempDir();
  let api: OahProcess;
  beforeAll(async () => {
    api = await startOah("oah-api", { env: { OAH_DATA_DIR: dir.path } });
  });
  afterAll(async () => {
    await api?.stop();
    dir.remove();
  });

  it("refuses a tRPC batch of 100 calls, and takes one of 10", async () => {
    const batch = (n: number) => {
      const paths = Array(n).fill("admin.overview").join(",");
      const input = encodeURIComponent(
        JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))),
      );
      return fetch(`${api.url}/trpc/${paths}?batch=1&input=${input}`);
    };
    expect((await batch(100)).status).toBe(400);
    expect((await batch(10)).status).toBe(200);
  });

  it("labels its metrics by route, not by the path a client made up: 2,000 refusals add no series", async () => {
    // The HTTP series (the process figures grow by themselves, a new kind of GC at a time).
    const size = async () =>
      (await (await fetch(`${api.url}/metrics`)).text()).split("\n").filter((l) => l.startsWith("oah_http_"))
        .length;
    // The series the measure itself and the first refusal make, before measuring.
    await fetch(`${api.url}/api/v1/runs/run_01KB0000000000000000000000`, { method: "DELETE" });
    await size();
    const before = await size();
    for (let i = 0; i < 2_000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          fetch(`${api.url}/api/v1/runs/run_${String(i + j).padStart(26, "0")}`, { method: "DELETE" }).then(
            (r) => r.text(),
          ),
        ),
      );
    }
    expect(await size()).toBe(before);
  });

  it("closes a connection that never finishes its headers within the headers timeout (10 s)", async () => {
    const { port } = new URL(api.url);
    const started = Date.now();
    const socket = connect(Number(port), "127.0.0.1", () =>
      socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
    );
    let answer = "";
    socket.on("data", (c) => {
      answer += c.toString();
    });
    const ms = await closedAfter(socket, started);
    expect(ms).toBeGreaterThanOrEqual(9_000);
    expect(ms).toBeLessThan(12_500);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
  }, 20_000);

  it("still answers /readyz with 3,000 half-open connections from one address", async () => {
    const { port } = new URL(api.url);
    const sockets: Socket[] = [];
    await Promise.all(
      Array.from(
        { length: 3_000 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(Number(port), "127.0.0.1", () => {
              socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
              resolve();
            });
            socket.on("error", () => resolve());
            sockets.push(socket);
          }),
      ),
    );
    try {
      const started = Date.now();
      const ready = await fetch(`${api.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2_000);
      // Most were closed to make room: no address holds more than its share (as soon as this
      // side has read the closes the server sent).
      const open = () => sockets.filter((s) => !s.destroyed && s.readyState === "open").length;
      await expect.poll(open, { timeout: 5_000 }).toBeLessThanOrEqual(500);
    } finally {
      for (const s of sockets) s.destroy();
    }
  }, 30_000);

  it("a client that writes its whole body first still gets its 413 (Python's http.client, Node's fetch)", async () => {
    expect(await pythonPost(api.url, 12 * 1024 * 1024)).toMatch(/^413 .*payload_too_large/);
    const res = await fetch(`${api.url}/api/v1/sessions/big/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(12 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
  });
});
