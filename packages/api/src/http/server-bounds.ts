import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/**
 * What one HTTP server of oah allows its clients (oah-api, a sandbox's probes): a client
 * that never finishes its headers, trickles its body, or keeps an idle connection is cut
 * off within seconds, and no address, nor all of them together, can hold more than so
 * many connections.
 */
export interface ServerBounds {
  headersTimeoutMs: number;
  /** The whole request, body included. */
  requestTimeoutMs: number;
  /** How long an idle connection is kept. */
  keepAliveTimeoutMs: number;
  /**
   * How long clients are told it is kept (`Keep-Alive: timeout=`): well under the time it is
   * kept, so that a client whose timer runs late (a loaded machine) never sends a request on
   * a connection the server is closing at that moment (the client sees "other side closed").
   */
  keepAliveAnnouncedMs: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Of a body left unread by a refusal (401, 413, …), how much is read and dropped before the connection is closed. */
  maxDiscardBytes: number;
}

export const SERVER_BOUNDS: ServerBounds = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 10_000,
  keepAliveAnnouncedMs: 5_000,
  maxConnections: 4_000,
  maxConnectionsPerAddress: 500,
  maxDiscardBytes: 64 * 1024 * 1024,
};

/** What a bounded server lets its handlers say of a connection. */
export interface ConnectionBounds {
  /** The request's connection holds an event stream: at a cap it gives way after idle ones. */
  holdsStream(req: IncomingMessage): void;
}

/**
 * Applies the bounds to a server. At a connection cap the newcomer is not refused: the
 * oldest connection with no request being answered (one that never finished its headers,
 * or an idle keep-alive) makes room, so that a flood of half-open sockets cannot keep a
 * real client (a health probe) out; failing that, the oldest event stream is closed (its
 * client resumes it where it was), so that streams never keep a probe or an ordinary
 * request out either; only when every connection at the cap is answering a request is
 * the newcomer closed.
 */
export function boundServer(server: Server, bounds: ServerBounds = SERVER_BOUNDS): ConnectionBounds {
  // Read when the server starts listening: how often the timeouts below are enforced (Node: 30 s).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1_000;
  server.headersTimeout = bounds.headersTimeoutMs;
  server.requestTimeout = bounds.requestTimeoutMs;
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  const all = new Set<Socket>();
  const byAddress = new Map<string, Set<Socket>>();
  const busy = new WeakSet<Socket>();
  const streaming = new WeakSet<Socket>();
  /** The first of `sockets` (the oldest) that `gives` says may go, closed; whether there was one. */
  const closeFirst = (sockets: Set<Socket>, newcomer: Socket, gives: (s: Socket) => boolean): boolean => {
    for (const socket of sockets) {
      if (socket !== newcomer && gives(socket)) {
        socket.destroy();
        return true;
      }
    }
    return false;
  };
  const makeRoom = (sockets: Set<Socket>, newcomer: Socket): boolean =>
    closeFirst(sockets, newcomer, (s) => !busy.has(s)) ||
    closeFirst(sockets, newcomer, (s) => streaming.has(s));
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const mine = byAddress.get(address) ?? new Set<Socket>();
    byAddress.set(address, mine);
    const full =
      (mine.size >= bounds.maxConnectionsPerAddress && !makeRoom(mine, socket)) ||
      (all.size >= bounds.maxConnections && !makeRoom(all, socket));
    if (full) {
      socket.destroy();
      return;
    }
    all.add(socket);
    mine.add(socket);
    socket.once("close", () => {
      all.delete(socket);
      mine.delete(socket);
      if (mine.size === 0) byAddress.delete(address);
    });
  });
  const announced = `timeout=${Math.floor(bounds.keepAliveAnnouncedMs / 1000)}`;
  // Before the handlers, which may send their headers at once.
  server.prependListener("request", (req: IncomingMessage, res) => {
    res.setHeader("Keep-Alive", announced);
    busy.add(req.socket);
    res.once("close", () => {
      busy.delete(req.socket);
      streaming.delete(req.socket);
    });
  });
  return { holdsStream: (req) => streaming.add(req.socket) };
}

/**
 * After an answer that left the request's body unread (a refusal), reads the rest and
 * drops it, up to `maxBytes`, so that a client that sends its whole body before it
 * reads still receives the answer; past that, the connection is closed.
 */
export function discardUnreadBody(req: IncomingMessage, maxBytes = SERVER_BOUNDS.maxDiscardBytes): void {
  if (req.complete || req.readableEnded) return;
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > maxBytes) req.socket.destroy();
  });
  req.resume();
}
