import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { encodeJson, Rollback, type SqlClient, StoreInUseError } from "./client";
import { storeUnavailable } from "./errors";

const dialect = new PgDialect();

// int8 columns hold epoch milliseconds and ids, well inside Number's exact range.
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as "text");
  },
};

// Fixed advisory lock keys: one held while migrating, so that hosts starting
// together migrate once; one held for life by a process that needs the store alone.
const MIGRATION_LOCK_KEY = 7_214_300_551;
const EXCLUSIVE_USE_KEY = 7_214_300_552;

type Queryable = pg.Pool | pg.PoolClient;

class PostgresConnection implements SqlClient {
  readonly dialect = "postgres" as const;
  readonly forUpdate = sql`FOR UPDATE`;

  private owner: pg.PoolClient | undefined;

  constructor(
    protected readonly db: Queryable,
    private readonly pool: pg.Pool,
  ) {}

  private async query(query: SQL, name: string | undefined): Promise<pg.QueryResult> {
    const { sql: text, params } = dialect.sqlToQuery(query);
    try {
      return await this.db.query({ text, values: params, name: name && `oah_${name}` });
    } catch (error) {
      throw storeUnavailable(error) ?? error;
    }
  }

  async all<T>(query: SQL, name?: string): Promise<T[]> {
    return (await this.query(query, name)).rows as T[];
  }

  async run(query: SQL, name?: string): Promise<number> {
    return (await this.query(query, name)).rowCount ?? 0;
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw storeUnavailable(error) ?? error;
    }
    let broken = false;
    try {
      await client.query("BEGIN");
      const value = await fn(new PostgresConnection(client, this.pool));
      await client.query("COMMIT");
      return value;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true;
      }
      if (error instanceof Rollback) return error.value as T;
      throw storeUnavailable(error) ?? error;
    } finally {
      client.release(broken);
    }
  }

  json(value: unknown): SQL {
    return value === undefined || value === null ? sql`NULL` : sql`CAST(${encodeJson(value)} AS jsonb)`;
  }

  asJson(expression: SQL): SQL {
    return sql`CAST(${expression} AS jsonb)`;
  }

  rowsOf(width: number, rows: readonly (readonly (string | null)[])[]): SQL {
    const columns = Array.from({ length: width }, (_, i) => rows.map((row) => row[i] ?? null));
    const arrays = sql.join(
      columns.map((values) => sql`CAST(${sql.param(values)} AS text[])`),
      sql`, `,
    );
    const names = sql.raw(columns.map((_, i) => `column${i + 1}`).join(", "));
    return sql`unnest(${arrays}) AS v(${names})`;
  }

  decodeJson(value: unknown): unknown {
    return value;
  }

  async acquireExclusiveUse(): Promise<void> {
    // A session-level advisory lock on a connection kept for the process's life:
    // the server frees it by itself when the process dies.
    const client = await this.pool.connect();
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
      EXCLUSIVE_USE_KEY,
    ]);
    if (!rows[0]?.locked) {
      client.release();
      throw new StoreInUseError("it holds the database's exclusive-use lock");
    }
    this.owner = client;
  }

  async ping(): Promise<void> {
    await this.all(sql`SELECT 1`);
  }

  async close(): Promise<void> {
    this.owner?.release(true);
    await this.pool.end();
  }
}

export async function openPostgres(url: string, migrationsFolder: string): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString: url, types, max: 10, connectionTimeoutMillis: 5_000 });
  // A connection's error (the server restarted) must not crash the process: the query in
  // flight fails with it and the pool replaces the connection.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw storeUnavailable(error) ?? error;
  }
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
  return new PostgresConnection(pool, pool);
}
