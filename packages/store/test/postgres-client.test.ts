// @module-tag system

import { createTestDatabase, MIGRATIONS_DIR, type TestDatabase } from "@oah/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlClient } from "../src/sql/client";
import { openPostgres } from "../src/sql/postgres-client";

describe("PostgreSQL client", () => {
  let database: TestDatabase;
  let db: SqlClient;
  // pg warns once per process, so this file's first queries are the ones to watch.
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);

  beforeAll(async () => {
    process.on("warning", onWarning);
    database = await createTestDatabase();
    db = await openPostgres(database.url, `${MIGRATIONS_DIR}/pg`);
  });

  afterAll(async () => {
    process.off("warning", onWarning);
    await db?.close();
    await database?.drop();
  });

  // A statement over arrays of one row, as a batch of one transition is. Left to choose,
  // PostgreSQL plans a statement for its parameters at its first five executions, and at
  // every later one while that looks cheaper, as it did for the transitions of small batches.
  const byIds = (ids: string[]) =>
    sql`SELECT count(*) AS n FROM runs WHERE id IN (SELECT column1 FROM ${db.rowsOf(
      1,
      ids.map((id) => [id]),
    )})`;

  it("plans a named statement once and keeps its plan", async () => {
    for (let i = 0; i < 12; i++) await db.all(byIds([`run_${i}`]), "probe");
    // Sequential calls reuse the one connection the pool opened for them.
    const [plans] = await db.all<{ generic_plans: number; custom_plans: number }>(
      sql`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'oah_probe'`,
      "probe_plans",
    );
    expect(plans).toEqual({ generic_plans: 12, custom_plans: 0 });
  });

  it("sets a connection up before its first query, not beside it", async () => {
    // Two named statements at once make the pool open a second connection.
    await Promise.all([db.all(byIds(["a"]), "probe"), db.all(byIds(["b"]), "probe")]);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });

  it("plans ad hoc statements and those of a transaction for their parameters", async () => {
    const mode = sql`SELECT current_setting('plan_cache_mode') AS mode`;
    expect(await db.all(mode)).toEqual([{ mode: "auto" }]);
    expect(await db.transaction((tx) => tx.all(mode, "mode_in_transaction"))).toEqual([{ mode: "auto" }]);
    expect(await db.all(mode, "mode")).toEqual([{ mode: "force_generic_plan" }]);
  });

  it("answers a full disk (SQLSTATE 53100) with 503 disk_full, the transaction's writes rolled back", async () => {
    const noRoom = sql`DO $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$`;
    await expect(db.run(noRoom)).rejects.toMatchObject({ code: "disk_full", status: 503 });
    const session = sql`SELECT count(*)::int AS n FROM sessions WHERE id = 'disk-full'`;
    await expect(
      db.transaction(async (tx) => {
        await tx.run(
          sql`INSERT INTO sessions (id, workspace_id, last_seq, created_at, updated_at) VALUES ('disk-full', 'default', 0, 0, 0)`,
        );
        await tx.run(noRoom);
      }),
    ).rejects.toMatchObject({ code: "disk_full" });
    expect(await db.all(session)).toEqual([{ n: 0 }]);
  });
});
