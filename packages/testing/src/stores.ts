import { type NewRun, openRunStore, type RunStore, type SqlRunStoreOptions } from "@oah/store";
import { createTempDir, MIGRATIONS_DIR } from "./paths";
import { createTestDatabase } from "./postgres";

export type StoreKind = "sqlite" | "postgres";
export const STORE_KINDS: StoreKind[] = ["sqlite", "postgres"];

export interface StoreEnv {
  /** What a process is given to use this store: OAH_DATA_DIR, and OAH_DATABASE_URL for PostgreSQL. */
  env: Record<string, string>;
  dataDir: string;
  databaseUrl: string | undefined;
  dispose(): Promise<void>;
}

/** A fresh, empty place for a store: a new data directory, and a new database for PostgreSQL. */
export async function createStoreEnv(kind: StoreKind): Promise<StoreEnv> {
  const dir = createTempDir();
  if (kind === "sqlite") {
    return {
      env: { OAH_DATA_DIR: dir.path },
      dataDir: dir.path,
      databaseUrl: undefined,
      dispose: async () => dir.remove(),
    };
  }
  const db = await createTestDatabase();
  return {
    env: { OAH_DATA_DIR: dir.path, OAH_DATABASE_URL: db.url },
    dataDir: dir.path,
    databaseUrl: db.url,
    dispose: async () => {
      await db.drop();
      dir.remove();
    },
  };
}

export interface TestStore {
  store: RunStore;
  dispose(): Promise<void>;
}

/** A fresh store of the given kind, opened in this process. */
export async function createTestStore(kind: StoreKind, options: SqlRunStoreOptions = {}): Promise<TestStore> {
  const place = await createStoreEnv(kind);
  const store = await openRunStore(
    { databaseUrl: place.databaseUrl, dataDir: place.dataDir, migrationsDir: MIGRATIONS_DIR },
    options,
  );
  return {
    store,
    dispose: async () => {
      await store.close();
      await place.dispose();
    },
  };
}

let newRunCount = 0;

/** A submission as the store takes it: a no-op `script` run of `sessionId`, with a fresh id. */
export function newRun(sessionId: string, overrides: Partial<NewRun> = {}): NewRun {
  newRunCount++;
  return {
    id: `run_01JTEST${String(newRunCount).padStart(19, "0")}`,
    sessionId,
    workspaceId: "default",
    parentRunId: null,
    priority: "normal",
    executor: "script",
    input: { steps: [] },
    timeoutMs: 60_000,
    idempotencyKey: null,
    ...overrides,
  };
}
