import { join } from "node:path";
import type { RunStore } from "./run-store";
import { openPostgres } from "./sql/postgres-client";
import { openSqlite } from "./sql/sqlite-client";
import { SqlRunStore, type SqlRunStoreOptions } from "./sql-run-store";

export interface StoreLocation {
  /** PostgreSQL when set (OAH_DATABASE_URL); SQLite under dataDir otherwise. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** The folder holding `pg/` and `sqlite/` migrations (the repository's `drizzle/`). */
  migrationsDir: string;
}

/** The SQLite file of the embedded default (docs/spec.md §2, §10). */
export const sqliteFileFor = (dataDir: string): string => join(dataDir, ".openharness", "data", "history.db");

/** Opens the store the configuration names, applying pending migrations first. */
export async function openRunStore(
  location: StoreLocation,
  options: SqlRunStoreOptions = {},
): Promise<RunStore> {
  const client = location.databaseUrl
    ? await openPostgres(location.databaseUrl, join(location.migrationsDir, "pg"))
    : openSqlite(sqliteFileFor(location.dataDir), join(location.migrationsDir, "sqlite"));
  return new SqlRunStore(client, options);
}
