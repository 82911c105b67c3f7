import { randomBytes } from "node:crypto";
import pg from "pg";

/** The server the tests use: OAH_TEST_DATABASE_URL, else the local default of these machines. */
export const POSTGRES_ADMIN_URL =
  process.env.OAH_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    // Loud on purpose: a suite that needs PostgreSQL must fail, never skip, when it is missing.
    throw new Error(
      `PostgreSQL is required by this test and is not reachable at ${POSTGRES_ADMIN_URL} ` +
        `(${(error as Error).message}). Start it (see .ci/run) or set OAH_TEST_DATABASE_URL.`,
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server, dropped by `drop()`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `oah_test_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
