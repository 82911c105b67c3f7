import { OahError } from "@oah/core";
import { type NewRun, openRunStore, openSqliteStore, type RunStore, type RunStoreOptions } from "@oah/store";
import { createTempDir, MIGRATIONS_DIR } from "./paths";
import { createTestDatabase } from "./postgres";

export type StoreKind = "sqlite" | "postgres";
export const STORE_KINDS: StoreKind[] = ["sqlite", "postgres"];

/**
 * The stores a test can open in its own process: those of STORE_KINDS, and SQLite in this
 * process's memory, the store of the engine's unit tests (never a deployment's: processes get
 * only STORE_KINDS).
 */
export type InProcessStoreKind = StoreKind | "sqlite-memory";
/** The stores that need no server: those of the unit tier. */
export const SQLITE_STORE_KINDS: InProcessStoreKind[] = ["sqlite", "sqlite-memory"];

/** A fresh store in this process's memory (SQLite's `:memory:`), migrated: nothing to dispose of but itself. */
export function createMemoryStore(options: RunStoreOptions = {}): RunStore {
  return openSqliteStore(":memory:", MIGRATIONS_DIR, options);
}

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
export async function createTestStore(
  kind: InProcessStoreKind,
  options: RunStoreOptions = {},
): Promise<TestStore> {
  if (kind === "sqlite-memory") {
    const store = createMemoryStore(options);
    return { store, dispose: () => store.close() };
  }
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
    ifBusy: "enqueue",
    ...overrides,
  };
}

/** What a store's write refused with (an OahError), or null when it was written. */
export async function refusalOf(work: Promise<unknown>): Promise<OahError | null> {
  try {
    await work;
    return null;
  } catch (error) {
    if (error instanceof OahError) return error;
    throw error;
  }
}
