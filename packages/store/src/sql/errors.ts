import { OahError } from "@oah/core";

// Connection-class failures: the server is down, restarting, or refusing us.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
]);

function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    error.message,
  );
}

/** The store error the API answers with 503, when `error` says the database cannot be reached. */
export function storeUnavailable(error: unknown): OahError | undefined {
  if (error instanceof OahError) return error;
  if (!isUnavailable(error)) return undefined;
  return new OahError("store_unavailable", "the run store is unavailable; try again shortly");
}
