import { join } from "node:path";
import { type RunStore, type RunStoreOptions, runStoreOver } from "./roles";
import { openPostgres } from "./sql/postgres-client";
import { openSqlite } from "./sql/sqlite-client";

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
  options: RunStoreOptions = {},
): Promise<RunStore> {
  if (!location.databaseUrl)
    return openSqliteStore(sqliteFileFor(location.dataDir), location.migrationsDir, options);
  return runStoreOver(await openPostgres(location.databaseUrl, join(location.migrationsDir, "pg")), options);
}

/**
 * The store on a SQLite file, migrated; `:memory:` keeps it in this process's memory, for the
 * tests of what runs in one process (never a deployment's: nothing of it outlives the process).
 */
export function openSqliteStore(
  file: string,
  migrationsDir: string,
  options: RunStoreOptions = {},
): RunStore {
  return runStoreOver(openSqlite(file, join(migrationsDir, "sqlite")), options);
}
