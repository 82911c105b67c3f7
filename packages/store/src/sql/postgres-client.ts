import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { encodeJson, Rollback, type SqlClient, StoreInUseError } from "./client";
import { storeError } from "./errors";

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

interface Pools {
  /** Ad hoc statements and transactions: each planned for its parameters. */
  adHoc: pg.Pool;
  /**
   * Named statements outside transactions, on connections that plan a statement
   * once and keep that plan. Left to choose, PostgreSQL plans a statement again at
   * every execution whenever its parameters promise a cheaper plan: the transitions
   * of small batches (few rows in their arrays) were planned anew at each of
   * them, 0.3 ms a time on a write path of about 1 ms.
   */
  prepared: pg.Pool;
}

class PostgresConnection implements SqlClient {
  readonly dialect = "postgres" as const;
  readonly forUpdate = sql`FOR UPDATE`;

  private owner: pg.PoolClient | undefined;

  constructor(
    private readonly pools: Pools,
    /** Where ad hoc statements go; in a transaction, named ones too. */
    private readonly db: Queryable = pools.adHoc,
    private readonly namedDb: Queryable = pools.prepared,
  ) {}

  private async query(query: SQL, name: string | undefined): Promise<pg.QueryResult> {
    const { sql: text, params } = dialect.sqlToQuery(query);
    try {
      if (name) return await this.namedDb.query({ text, values: params, name: `oah_${name}` });
      return await this.db.query({ text, values: params });
    } catch (error) {
      throw storeError(error) ?? error;
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
      client = await this.pools.adHoc.connect();
    } catch (error) {
      throw storeError(error) ?? error;
    }
    let broken = false;
    try {
      await client.query("BEGIN");
      const value = await fn(new PostgresConnection(this.pools, client, client));
      await client.query("COMMIT");
      return value;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true;
      }
      if (error instanceof Rollback) return error.value as T;
      throw storeError(error) ?? error;
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
    const client = await this.pools.adHoc.connect();
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
    await Promise.all([this.pools.adHoc.end(), this.pools.prepared.end()]);
  }
}

function openPool(url: string, setUp?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    types,
    max: 10,
    connectionTimeoutMillis: 5_000,
    // Awaited before the connection serves its first query. A setting the server does not
    // know leaves the connection as it was (a SET rather than a startup option, which the
    // URL's own `options` or a connection pooler in front of the server may refuse or replace).
    onConnect: setUp
      ? async (client) => {
          await client.query(setUp).catch(() => {});
        }
      : undefined,
  });
  // A connection's error (the server restarted) must not crash the process: the query in
  // flight fails with it and the pool replaces the connection.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

export async function openPostgres(url: string, migrationsFolder: string): Promise<SqlClient> {
  const pool = openPool(url);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw storeError(error) ?? error;
  }
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
  // Opened on demand: a host that writes no named statements (an API host without
  // workers writes few) holds few of its connections.
  const prepared = openPool(url, "SET plan_cache_mode = force_generic_plan");
  return new PostgresConnection({ adHoc: pool, prepared });
}
