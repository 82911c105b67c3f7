import { createConnection, createServer, type Server, type Socket } from "node:net";
import { freePort } from "@oah/testing";

export interface Relay {
  url: string;
  /** Closes the port and every connection through it: to whoever uses the relay, the target is gone. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * A TCP relay to `target` on a port of its own, so that a test can take a process away from the
 * one that talks to it (and bring it back) without stopping it for everyone else.
 */
export async function startRelay(target: string): Promise<Relay> {
  const { hostname, port: targetPort } = new URL(target);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection({ host: hostname, port: Number(targetPort) });
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });

  await start();
  return { url: `http://127.0.0.1:${port}`, stop, start };
}
