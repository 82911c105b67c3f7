import type { ServerResponse } from "node:http";
import { toApiError } from "../errors";

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

/** Answers an error in the API's shape (SPEC §12); returns the status sent. */
export function sendError(res: ServerResponse, error: unknown, headers: Record<string, string> = {}): number {
  const { status, body } = toApiError(error);
  sendJson(res, status, body, headers);
  return status;
}
