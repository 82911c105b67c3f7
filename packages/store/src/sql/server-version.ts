import pg from "pg";

/** The version PostgreSQL at `url` reports (`server_version`), or the error that kept it from answering. */
export async function postgresVersion(url: string, timeoutMs = 5_000): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    return rows[0]!.server_version;
  } finally {
    await client.end().catch(() => {});
  }
}
