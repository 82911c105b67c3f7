import { createHash } from "node:crypto";
import type { StorageRunFilters } from "@oah/contract";
import { OahError } from "@oah/core";

export interface CursorPosition {
  createdAt: number;
  id: string;
}

/** A short fingerprint of the filters, so that a cursor is refused with other filters than its own. */
function fingerprint(filters: StorageRunFilters): string {
  return createHash("sha256").update(JSON.stringify(filters)).digest("base64url").slice(0, 12);
}

/** The opaque `nextCursor` of a storage page: where the page ended, for these filters. */
export function encodeCursor(position: CursorPosition, filters: StorageRunFilters): string {
  const body = JSON.stringify({ v: 1, t: position.createdAt, i: position.id, f: fingerprint(filters) });
  return Buffer.from(body).toString("base64url");
}

const invalid = (why: string) => new OahError("invalid_cursor", `the cursor is not valid: ${why}`);

/** The position a cursor stands for; an `invalid_cursor` error for anything this API did not make. */
export function decodeCursor(cursor: string, filters: StorageRunFilters): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid("not a cursor of this API");
  }
  const c = parsed as { v?: unknown; t?: unknown; i?: unknown; f?: unknown };
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    c.v !== 1 ||
    !Number.isSafeInteger(c.t) ||
    (c.t as number) < 0 ||
    typeof c.i !== "string" ||
    !/^run_[0-9A-HJKMNP-TV-Z]{26}$/.test(c.i) ||
    typeof c.f !== "string" ||
    Object.keys(parsed).length !== 4
  ) {
    throw invalid("not a cursor of this API");
  }
  if (c.f !== fingerprint(filters))
    throw invalid("it was made for other filters; start again from the first page");
  return { createdAt: c.t as number, id: c.i };
}

/** Filters in one canonical form: lists sorted and without repeats, absent fields left out. */
export function normalizeFilters(filters: StorageRunFilters): StorageRunFilters {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? [...new Set(value)].sort() : value;
  }
  return out as StorageRunFilters;
}
