import { z } from "zod";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** How deep an input may nest: deeper values are refused, not walked (nor overflowing a stack). */
export const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  path: (string | number)[];
  message: string;
}

/** Why a string cannot be stored as it is, on every store alike (PostgreSQL refuses both in text and jsonb). */
function textProblem(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return "contains a NUL character (U+0000), which cannot be stored";
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return "contains a lone surrogate (a half of a UTF-16 pair), which is not text";
    }
    if (code >= 0xdc00 && code <= 0xdfff)
      return "contains a lone surrogate (a half of a UTF-16 pair), which is not text";
  }
  return null;
}

/**
 * The first part of an input that could not be stored and read back exactly as it came,
 * or null: a value that is not JSON (undefined, a function, NaN, a class instance), a
 * string or a key holding NUL or a lone surrogate, or nesting deeper than MAX_JSON_DEPTH.
 * The one check every API input goes through (both protocols, both stores). It walks
 * with a stack of its own, so that no input can overflow the call stack.
 */
export function findJsonProblem(value: unknown): JsonProblem | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (path.length > MAX_JSON_DEPTH)
      return { path: path.slice(0, MAX_JSON_DEPTH), message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
    if (v === null || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { path, message: "is not a finite number" };
      continue;
    }
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return { path, message: problem };
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
      continue;
    }
    if (
      typeof v === "object" &&
      (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
    ) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const problem = textProblem(key);
        if (problem) return { path: [...path, key], message: `is a key that ${problem}` };
        stack.push({ value: (v as Record<string, unknown>)[key], path: [...path, key] });
      }
      continue;
    }
    return { path, message: "is not a JSON value" };
  }
  return null;
}

/**
 * A JSON value, passed through as it came: unlike `z.json()`, which rebuilds objects and
 * so drops a `__proto__` key and its data, this keeps every own key. Checked by
 * findJsonProblem.
 */
export const jsonValue = z.unknown().superRefine((value, ctx) => {
  const problem = findJsonProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: problem.path });
}) as unknown as z.ZodType<JsonValue>;

/**
 * A whole number from a query string or a JSON number: only decimal digits (`0x10`, `1e3`,
 * ` 7` and `7.0` are refused, where `z.coerce.number()` took them).
 */
export const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (value) => (typeof value === "string" && /^(0|[1-9]\d{0,15})$/.test(value) ? Number(value) : value),
    z.int({ error: "must be a whole number in decimal digits" }).min(min).max(max),
  );

/** Whether two JSON values are the same: same keys with the same values, whatever their order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => jsonEqual(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}
