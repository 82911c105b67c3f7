// @module-tag system

import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openRunStore, sqliteFileFor } from "@oah/store";
import { createStoreEnv, createTempDir, MIGRATIONS_DIR, newRun, type StoreEnv } from "@oah/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";

/** The migrations of a dialect up to (not including) the one that binds sessions to workspaces. */
function migrationsBefore(tag: string): { dir: string; remove(): void } {
  const tmp = createTempDir("oah-migrations-");
  for (const dialect of ["pg", "sqlite"]) {
    const from = join(MIGRATIONS_DIR, dialect);
    const to = join(tmp.path, dialect);
    mkdirSync(join(to, "meta"), { recursive: true });
    const journal = JSON.parse(readFileSync(join(from, "meta", "_journal.json"), "utf8"));
    const last = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith(tag));
    journal.entries = journal.entries.slice(0, last);
    writeFileSync(join(to, "meta", "_journal.json"), JSON.stringify(journal));
    for (const entry of journal.entries) cpSync(join(from, `${entry.tag}.sql`), join(to, `${entry.tag}.sql`));
  }
  return { dir: tmp.path, remove: tmp.remove };
}

/** Rows as an earlier version wrote them: a session whose runs are in two workspaces, and one without runs. */
const EARLIER_ROWS = [
  "INSERT INTO sessions (id, last_seq, created_at, updated_at) VALUES ('mixed', 2, 1, 1), ('empty', 0, 1, 1)",
  `INSERT INTO runs (id, session_id, seq, queue_seq, workspace_id, priority, executor, input, status, created_at,
     enqueued_at, timeout_ms, attempt, metadata, updated_at)
   VALUES ('run_01JOLD00000000000000000001', 'mixed', 1, 1, 'team-a', 'normal', 'script', '{"steps":[]}', 'completed', 1, 1, 1000, 1, '{}', 1),
          ('run_01JOLD00000000000000000002', 'mixed', 2, 2, 'team-b', 'normal', 'script', '{"steps":[]}', 'completed', 2, 2, 1000, 1, '{}', 2)`,
];

async function writeEarlierRows(kind: "sqlite" | "postgres", place: StoreEnv): Promise<void> {
  if (kind === "sqlite") {
    const db = new Database(sqliteFileFor(place.dataDir));
    for (const statement of EARLIER_ROWS) db.exec(statement);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: place.databaseUrl });
  await client.connect();
  for (const statement of EARLIER_ROWS) await client.query(statement);
  await client.end();
}

describe.each(["sqlite", "postgres"] as const)("the sessions' workspaces, migrated on %s", (kind) => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it("takes each session's workspace from its first run, keeps earlier runs readable, refuses new ones of another", async () => {
    const place = await createStoreEnv(kind);
    cleanup.push(place.dispose);
    const earlier = migrationsBefore("_session_workspace");
    cleanup.push(earlier.remove);
    const location = { databaseUrl: place.databaseUrl, dataDir: place.dataDir };
    await (await openRunStore({ ...location, migrationsDir: earlier.dir })).close();
    await writeEarlierRows(kind, place);

    const store = await openRunStore({ ...location, migrationsDir: MIGRATIONS_DIR });
    cleanup.push(() => store.close());
    const runs = await store.listSessionRuns("mixed", { limit: 10 });
    expect(runs.map((r) => r.workspaceId)).toEqual(["team-a", "team-b"]);
    await expect(store.createRun(newRun("mixed", { workspaceId: "team-b" }))).rejects.toMatchObject({
      code: "session_workspace_mismatch",
    });
    expect((await store.createRun(newRun("mixed", { workspaceId: "team-a" }))).run.seq).toBe(3);
    // A session without runs belongs to the default workspace.
    await expect(store.createRun(newRun("empty", { workspaceId: "team-a" }))).rejects.toMatchObject({
      code: "session_workspace_mismatch",
    });
    expect((await store.createRun(newRun("empty"))).run.seq).toBe(1);
  });
});
