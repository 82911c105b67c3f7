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

// No room left for the write: SQLite's file (or its journal) on a full disk, PostgreSQL's
// disk_full (53100), a file of the store that Node writes itself.
const DISK_FULL_CODES = new Set(["SQLITE_FULL", "53100", "ENOSPC", "EDQUOT"]);

const codeOf = (error: Error): string | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
};

function isUnavailable(error: Error): boolean {
  const code = codeOf(error);
  if (code !== undefined && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    error.message,
  );
}

/**
 * The store error the API answers with 503 (docs/spec.md §12): `store_unavailable` when the database
 * cannot be reached, `disk_full` when it has no room for a write (the write is rolled back
 * whole); undefined for any other error.
 */
export function storeError(error: unknown): OahError | undefined {
  if (error instanceof OahError) return error;
  if (!(error instanceof Error)) return undefined;
  if (DISK_FULL_CODES.has(codeOf(error) ?? "")) {
    return new OahError(
      "disk_full",
      "the run store's disk is full: nothing was written; try again once there is room",
    );
  }
  if (isUnavailable(error))
    return new OahError("store_unavailable", "the run store is unavailable; try again shortly");
  return undefined;
}
