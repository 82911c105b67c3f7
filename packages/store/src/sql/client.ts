import type { SQL } from "drizzle-orm";

/**
 * The one seam between the store's queries and a database. The queries are
 * written once, as drizzle `sql` templates in the common dialect of PostgreSQL
 * and SQLite; a client renders them for its dialect and runs them.
 */
export interface SqlClient {
  readonly dialect: "postgres" | "sqlite";
  /**
   * Rows of a query (a statement with RETURNING included). A `name` makes it a
   * prepared statement on PostgreSQL, parsed once per connection and, outside a
   * transaction, planned once for any parameters: for hot statements whose text
   * never changes (SQLite prepares every statement anyway).
   */
  all<T>(query: SQL, name?: string): Promise<T[]>;
  /** Runs a statement; resolves to the number of rows it changed. `name` as for all(). */
  run(query: SQL, name?: string): Promise<number>;
  /** Runs `fn` in one transaction; throwing `Rollback` undoes it and resolves to its value. */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  /** A JSON value as a query parameter, typed for the dialect's JSON column. */
  json(value: unknown): SQL;
  /** An expression holding JSON text (a VALUES column), typed for the dialect's JSON column. */
  asJson(expression: SQL): SQL;
  /**
   * Rows of `width` text (or NULL) values to select from, as `v` with columns
   * column1…columnN. PostgreSQL gets one array parameter per column, so that the
   * statement's text is the same whatever the number of rows; SQLite a VALUES list.
   */
  rowsOf(width: number, rows: readonly (readonly (string | null)[])[]): SQL;
  /** `FOR UPDATE` where the dialect has row locks; SQLite's write transactions lock the whole file. */
  readonly forUpdate: SQL;
  /** JSON column values as they come back from the driver, decoded. */
  decodeJson(value: unknown): unknown;
  /**
   * Makes this process the store's only user until close(), or throws when
   * another live process holds it: for the modes whose queue lives in process.
   */
  acquireExclusiveUse(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class StoreInUseError extends Error {
  constructor(detail: string) {
    super(`the run store is in use by another oah process (${detail}); only one may use it without Redis`);
    this.name = "StoreInUseError";
  }
}

export class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super("rollback");
  }
}

/**
 * A NUL or a lone surrogate, as JSON.stringify writes them (the only characters it writes as
 * `\u0000` and `\udXXX` escapes), after an even run of backslashes (so not an escaped backslash
 * followed by the letters "u0000").
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;

/**
 * JSON text for a parameter. NUL characters and lone surrogates, in keys and values alike, become
 * U+FFFD: PostgreSQL's jsonb cannot hold them (a model's reply can have them), and both stores
 * must keep the same values.
 */
export function encodeJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text?.includes("\\u") ? text.replace(UNSTORABLE_ESCAPE, "$1\\ufffd") : text;
}
