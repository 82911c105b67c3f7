import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/** What Node's HTTP parser refused, as the status and code of the API's error shape. */
function refusalOf(error: NodeJS.ErrnoException): { status: number; code: string; message: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        code: "request_headers_too_large",
        message: "the request's headers are too large",
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "request_timeout", message: "the request did not arrive in time" };
    default:
      return {
        status: 400,
        code: "invalid_request",
        message: `the request is not valid HTTP (${error.code ?? "parse error"})`,
      };
  }
}

/**
 * The answer to a request Node's parser refused before any route saw it (headers too
 * large, a duplicate Content-Length, a malformed line, a request that took too long):
 * the API's JSON error shape where the socket can still take one, then the connection
 * is closed. Node's own answer has no body.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, code, message } = refusalOf(error);
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
