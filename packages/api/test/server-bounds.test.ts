// @module-tag unit

import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { boundServer, SERVER_BOUNDS } from "../src/http";

/** A server of 4 connections at most: `/stream` holds an event stream, `/busy` never answers, `/healthz` answers. */
async function startServer(): Promise<{ server: Server; port: number; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    if (req.url === "/stream") {
      bounds.holdsStream(req);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
    } else if (req.url === "/healthz") {
      res.end("ok");
    }
  });
  const bounds = boundServer(server, { ...SERVER_BOUNDS, maxConnections: 4, maxConnectionsPerAddress: 4 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, requests: () => requests };
}

/** A request on a connection of its own, resolved once its answer's headers came (or never, for /busy). */
function open(port: number, path: string): { closed: Promise<void>; answered: Promise<IncomingMessage> } {
  let req: ReturnType<typeof request>;
  const closed = new Promise<void>((resolve) => {
    req = request({ port, host: "127.0.0.1", path, agent: false });
    req.on("error", () => resolve());
    req.on("close", () => resolve());
  });
  const answered = new Promise<IncomingMessage>((resolve) => {
    req.on("response", (res) => {
      res.on("error", () => {});
      res.resume();
      resolve(res);
    });
  });
  req!.end();
  opened.push(() => req.destroy());
  return { closed, answered };
}

/** A connection that never sends a request (idle, as a keep-alive between requests is). */
function idle(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", () => {});
    opened.push(() => socket.destroy());
  });
}

const opened: (() => void)[] = [];
let current: Server | undefined;
afterEach(() => {
  for (const close of opened.splice(0)) close();
  current?.close();
});

/** The status of a probe's answer, or "closed" when its connection was closed instead. */
const answerOf = (probe: ReturnType<typeof open>) =>
  Promise.race([probe.answered.then((res) => res.statusCode), probe.closed.then(() => "closed")]);

const isOpen = async (closed: Promise<void>) =>
  Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 200))]);

describe("keep-alive", () => {
  it("tells clients a shorter idle time than the one the server keeps a connection for", async () => {
    const { server, port } = await startServer();
    current = server;
    const answer = await open(port, "/healthz").answered;
    expect(answer.headers["keep-alive"]).toBe(`timeout=${SERVER_BOUNDS.keepAliveAnnouncedMs / 1000}`);
    expect(server.keepAliveTimeout).toBe(SERVER_BOUNDS.keepAliveTimeoutMs);
    expect(SERVER_BOUNDS.keepAliveTimeoutMs - SERVER_BOUNDS.keepAliveAnnouncedMs).toBeGreaterThanOrEqual(
      5_000,
    );
  });
});

describe("the connection caps and event streams", () => {
  it("at the cap, the oldest stream gives way to a probe when no connection is idle", async () => {
    const { server, port } = await startServer();
    current = server;
    const streams = [];
    for (let i = 0; i < 4; i++) {
      const stream = open(port, "/stream");
      await stream.answered;
      streams.push(stream);
    }
    expect(await answerOf(open(port, "/healthz"))).toBe(200);
    expect(await Promise.all(streams.map((s) => isOpen(s.closed)))).toEqual([false, true, true, true]);
  });

  it("idle connections give way before any stream", async () => {
    const { server, port } = await startServer();
    current = server;
    const streams = [open(port, "/stream"), open(port, "/stream")];
    await Promise.all(streams.map((s) => s.answered));
    const idlers = [await idle(port), await idle(port)];
    expect(await answerOf(open(port, "/healthz"))).toBe(200);
    expect(await Promise.all(streams.map((s) => isOpen(s.closed)))).toEqual([true, true]);
    await expect.poll(() => idlers.filter((s) => s.destroyed || s.readableEnded).length).toBe(1);
  });

  it("with every connection answering an ordinary request, the newcomer is the one closed", async () => {
    const { server, port, requests } = await startServer();
    current = server;
    const busy = [];
    for (let i = 0; i < 4; i++) busy.push(open(port, "/busy"));
    await expect.poll(requests).toBe(4);
    expect(await answerOf(open(port, "/healthz"))).toBe("closed");
    expect(await Promise.all(busy.map((s) => isOpen(s.closed)))).toEqual([true, true, true, true]);
  });
});
