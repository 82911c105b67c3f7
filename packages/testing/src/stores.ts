import { openRunStore, type RunStore, type SqlRunStoreOptions } from "@oah/store";
import { MIGRATIONS_DIR, createTempDir } from "./paths";
import { createTestDatabase } from "./postgres";

export type StoreKind = "sqlite" | "postgres";
export const STORE_KINDS: StoreKind[] = ["sqlite", "postgres"];

export interface TestStore {
  store: RunStore;
  /** What a process would be given to open the same store (OAH_DATABASE_URL / OAH_DATA_DIR). */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** A fresh store of the given kind: a new SQLite file, or a new PostgreSQL database. */
export async function createTestStore(kind: StoreKind, options: SqlRunStoreOptions = {}): Promise<TestStore> {
  const dir = createTempDir();
  if (kind === "sqlite") {
    const store = await openRunStore({ dataDir: dir.path, migrationsDir: MIGRATIONS_DIR }, options);
    return {
      store,
      env: { OAH_DATA_DIR: dir.path },
      dispose: async () => {
        await store.close();
        dir.remove();
      },
    };
  }
  const db = await createTestDatabase();
  const store = await openRunStore({ databaseUrl: db.url, dataDir: dir.path, migrationsDir: MIGRATIONS_DIR }, options);
  return {
    store,
    env: { OAH_DATABASE_URL: db.url, OAH_DATA_DIR: dir.path },
    dispose: async () => {
      await store.close();
      await db.drop();
      dir.remove();
    },
  };
}
