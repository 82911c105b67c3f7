import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import type { OahConfig } from "@oah/config";
import { redisTargetOf, redisVersion } from "@oah/redis";
import { postgresVersion } from "@oah/store";
import { type CheckResult, messageOf } from "./check";

/** Node.js 20.19 or later on 20, or 22 and later (the root package.json's engines). */
export function checkNode(version = process.versions.node): CheckResult {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const ok = (major === 20 && minor >= 19) || major >= 22;
  return {
    label: "Node.js",
    ok,
    needed: true,
    detail: `v${version}`,
    fix: "install Node.js 20 (20.19 or later) or 22 and later, with npm 11",
  };
}

/** better-sqlite3, the embedded store and a worker host's local history: its native module loads and opens a database. */
export async function checkSqlite(config: OahConfig): Promise<CheckResult> {
  const label = "better-sqlite3 (the embedded store)";
  try {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(":memory:");
    const version = (db.prepare("select sqlite_version() as v").get() as { v: string }).v;
    db.close();
    return { label, ok: true, needed: true, detail: `loads, SQLite ${version}` };
  } catch (error) {
    return {
      label,
      ok: false,
      // Without OAH_DATABASE_URL it is the store; with it, still a worker host's local history.
      needed: true,
      detail: `does not load: ${messageOf(error)}`,
      fix:
        config.databaseUrl === undefined
          ? "npm rebuild better-sqlite3 (it compiles with python3, make and g++: apt-get install -y python3 make g++)"
          : "npm rebuild better-sqlite3 (python3, make and g++ must be installed)",
    };
  }
}

/** The data directory: made if missing, writable by oah. */
export function checkDataDir(config: OahConfig): CheckResult {
  const label = "data directory";
  try {
    mkdirSync(config.dataDir, { recursive: true });
    accessSync(config.dataDir, constants.W_OK | constants.X_OK);
    const mode = (statSync(config.dataDir).mode & 0o777).toString(8);
    return { label, ok: true, needed: true, detail: `${config.dataDir} (mode ${mode}), writable` };
  } catch (error) {
    return {
      label,
      ok: false,
      needed: true,
      detail: `${config.dataDir}: ${messageOf(error)}`,
      fix: "set OAH_DATA_DIR to a directory oah's user may write",
    };
  }
}

/** A port oah listens on is free on its address. */
export function checkPort(label: string, host: string, port: number, variable: string): Promise<CheckResult> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      resolve({
        label,
        ok: false,
        needed: true,
        detail: `${host}:${port} is not free (${error.code ?? messageOf(error)})`,
        fix: `stop what listens on ${port} (ss -ltnp 'sport = :${port}'), or set ${variable} to another port`,
      }),
    );
    server.listen(port, host, () => {
      server.close(() => resolve({ label, ok: true, needed: true, detail: `${host}:${port} is free` }));
    });
  });
}

/** Redis, when the configuration names one: it answers, with its version. */
export async function checkRedis(config: OahConfig): Promise<CheckResult | null> {
  const target = redisTargetOf(config);
  if (!target) return null;
  try {
    return {
      label: "Redis",
      ok: true,
      needed: true,
      detail: `answers, version ${await redisVersion(target)}`,
    };
  } catch (error) {
    return {
      label: "Redis",
      ok: false,
      needed: true,
      detail: messageOf(error),
      fix: "start Redis, or correct OAH_REDIS_URL (or OAH_REDIS_CLUSTER_NODES)",
    };
  }
}

/** PostgreSQL, when the configuration names one: it answers, with its version. */
export async function checkPostgres(config: OahConfig): Promise<CheckResult | null> {
  if (!config.databaseUrl) return null;
  try {
    return {
      label: "PostgreSQL",
      ok: true,
      needed: true,
      detail: `answers, version ${await postgresVersion(config.databaseUrl)}`,
    };
  } catch (error) {
    return {
      label: "PostgreSQL",
      ok: false,
      needed: true,
      detail: messageOf(error),
      fix: "start PostgreSQL, or correct OAH_DATABASE_URL",
    };
  }
}
