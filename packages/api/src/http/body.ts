import type { IncomingMessage } from "node:http";
import { OahError } from "@oah/core";

/** The JSON body of a request, at most `limit` bytes; undefined when there is none. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new OahError("payload_too_large", `the request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new OahError("payload_too_large", `the request body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new OahError("invalid_json", "the request body is not valid JSON");
  }
}
