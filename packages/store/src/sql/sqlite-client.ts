import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { encodeJson, Rollback, type SqlClient, StoreInUseError } from "./client";
import { storeError } from "./errors";

const dialect = new SQLiteSyncDialect();
const STATEMENT_CACHE_SIZE = 256;

/** `value ->> 0 AS column1, …`: the columns of rows passed as a JSON array of arrays. */
const selectColumns = (width: number) =>
  sql.raw(Array.from({ length: width }, (_, i) => `value ->> ${i} AS column${i + 1}`).join(", "));

/** Serialises async work: one connection, so a transaction must not interleave with other statements. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async lock<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/**
 * Whether a process lives: one that was killed and not yet reaped (a zombie, for as long as its
 * parent, in a container often a minimal init, takes to wait for it) holds nothing any more.
 */
function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // The state is the field after the command's name, which is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

function bindable(params: unknown[]): unknown[] {
  return params.map((p) => (p === undefined ? null : typeof p === "boolean" ? Number(p) : p));
}

class SqliteStatements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  prepare(query: SQL): { statement: Database.Statement; params: unknown[] } {
    const { sql: text, params } = dialect.sqlToQuery(query);
    let statement = this.cache.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      if (this.cache.size >= STATEMENT_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(text, statement);
    }
    return { statement, params: bindable(params) };
  }
}

class SqliteConnection implements SqlClient {
  readonly dialect = "sqlite" as const;
  readonly forUpdate = sql``;

  private ownerFile: string | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: SqliteStatements,
    /** Present outside a transaction: every statement waits for open transactions to end. */
    private readonly mutex: Mutex | null,
  ) {}

  private exclusive<T>(fn: () => T): Promise<T> {
    const mapped = () => {
      try {
        return fn();
      } catch (error) {
        throw storeError(error) ?? error;
      }
    };
    return this.mutex ? this.mutex.lock(async () => mapped()) : Promise.resolve().then(mapped);
  }

  all<T>(query: SQL): Promise<T[]> {
    return this.exclusive(() => {
      const { statement, params } = this.statements.prepare(query);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    });
  }

  run(query: SQL): Promise<number> {
    return this.exclusive(() => {
      const { statement, params } = this.statements.prepare(query);
      if (statement.reader) return statement.all(...params).length;
      return statement.run(...params).changes;
    });
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    if (!this.mutex) throw new Error("nested transactions are not supported");
    return this.mutex.lock(async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const value = await fn(new SqliteConnection(this.db, this.statements, null));
        this.db.exec("COMMIT");
        return value;
      } catch (error) {
        // Whatever failed (a statement, the commit on a full disk), nothing of it stays.
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        if (error instanceof Rollback) return error.value as T;
        throw storeError(error) ?? error;
      }
    });
  }

  json(value: unknown): SQL {
    return value === undefined || value === null ? sql`NULL` : sql`${encodeJson(value)}`;
  }

  asJson(expression: SQL): SQL {
    return expression;
  }

  rowsOf(width: number, rows: readonly (readonly (string | null)[])[]): SQL {
    // The rows as one JSON parameter: one statement text whatever their number, prepared once.
    // LIMIT -1 (no limit) keeps SQLite from flattening the subquery into the join: its rows are
    // made first and find theirs in the other table by its index. Flattened, json_each (which has
    // no index) was read in full for every row of the other table the join's WHERE left: a bulk
    // job's chunk of 100 items read its whole job's items 100 times (2 s at 100,000).
    return sql`(SELECT ${selectColumns(width)} FROM json_each(${JSON.stringify(rows)}) LIMIT -1) AS v`;
  }

  decodeJson(value: unknown): unknown {
    return typeof value === "string" ? JSON.parse(value) : value;
  }

  async acquireExclusiveUse(): Promise<void> {
    // A database in this process's memory is no other process's to open.
    if (this.db.memory) return;
    // An owner file beside the database, naming the owning process; one left by
    // a process that died is taken over.
    const path = `${this.db.name}.owner`;
    const mine = String(process.pid);
    try {
      const holder = Number(readFileSync(path, "utf8"));
      if (holder !== process.pid && processExists(holder))
        throw new StoreInUseError(`pid ${holder}, see ${path}`);
    } catch (error) {
      if (error instanceof StoreInUseError) throw error;
    }
    writeFileSync(path, mine);
    this.ownerFile = path;
  }

  async ping(): Promise<void> {
    await this.all(sql`SELECT 1`);
  }

  async close(): Promise<void> {
    await this.mutex?.lock(async () => this.db.close());
    if (this.ownerFile) rmSync(this.ownerFile, { force: true });
  }
}

/** The SQLite database in `file` (`:memory:`: in this process's memory), migrated. */
export function openSqlite(file: string, migrationsFolder: string): SqlClient {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(drizzle({ client: db }), { migrationsFolder });
  return new SqliteConnection(db, new SqliteStatements(db), new Mutex());
}
