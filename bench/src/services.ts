// PostgreSQL and Redis for the bench, found the way `npm test` finds them:
// OAH_TEST_DATABASE_URL / OAH_TEST_REDIS_URL when set (and then they must answer),
// else the local defaults of these machines, else private throwaway servers
// (startPrivatePostgres / startPrivateRedis). Everything the bench writes lives in
// databases (`oah_bench_*`) and key prefixes (`oahbench-*`) of its own, removed at
// the end: a user's runs are never touched.
import { randomBytes } from "node:crypto";
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from "@oah/testing";
import { Redis } from "ioredis";
import pg from "pg";
import { log } from "./log";

const DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
const DEFAULT_REDIS = "redis://127.0.0.1:6379";

export interface Services {
  /** An admin URL (database `postgres` or whatever the URL names): databases are created from it. */
  postgresUrl: string;
  redisUrl: string;
  /** Where each came from, for the report. */
  origin: { postgres: string; redis: string };
  /** A connection for INFO and key clean-up. */
  redis: Redis;
  /** A new database: empty, or a copy of `template` (CREATE DATABASE … TEMPLATE; nobody may be connected to it). */
  createDatabase(tag: string, template?: BenchDatabase): Promise<BenchDatabase>;
  createRedisPrefix(tag: string): Promise<BenchRedisPrefix>;
  /** Copies every oah key of one prefix to another (`{from}:x` → `{to}:x`, with COPY: values and TTLs). */
  copyOahKeys(from: BenchRedisPrefix, to: BenchRedisPrefix): Promise<number>;
  /** Drops what is left (databases, keys) and stops private servers. */
  dispose(): Promise<void>;
}

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export interface BenchRedisPrefix {
  prefix: string;
  /** Deletes every key under the prefix (oah's `{prefix}:*` and a peer's `prefix:*`). */
  clear(): Promise<void>;
}

const mask = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function findPostgres(
  forcePrivate: boolean,
): Promise<{ url: string; origin: string; server?: PrivatePostgres }> {
  if (forcePrivate) {
    const server = await startPrivatePostgres();
    return { url: server.url, origin: `private server ${server.url} (--private-services)`, server };
  }
  const fromEnv = process.env.OAH_TEST_DATABASE_URL;
  if (fromEnv) {
    if (await postgresAnswers(fromEnv))
      return { url: fromEnv, origin: `OAH_TEST_DATABASE_URL ${mask(fromEnv)}` };
    throw new Error(`OAH_TEST_DATABASE_URL is set (${mask(fromEnv)}) but PostgreSQL does not answer there`);
  }
  if (await postgresAnswers(DEFAULT_POSTGRES))
    return { url: DEFAULT_POSTGRES, origin: `local default ${DEFAULT_POSTGRES}` };
  log(`PostgreSQL does not answer at ${DEFAULT_POSTGRES}: starting a private server`);
  const server = await startPrivatePostgres();
  return { url: server.url, origin: `private server ${server.url}`, server };
}

async function findRedis(
  forcePrivate: boolean,
): Promise<{ url: string; origin: string; server?: PrivateRedis }> {
  if (forcePrivate) {
    const server = await startPrivateRedis();
    return { url: server.url, origin: `private server ${server.url} (--private-services)`, server };
  }
  const fromEnv = process.env.OAH_TEST_REDIS_URL;
  if (fromEnv) {
    if (await redisAnswers(fromEnv)) return { url: fromEnv, origin: `OAH_TEST_REDIS_URL ${mask(fromEnv)}` };
    throw new Error(`OAH_TEST_REDIS_URL is set (${mask(fromEnv)}) but Redis does not answer there`);
  }
  if (await redisAnswers(DEFAULT_REDIS))
    return { url: DEFAULT_REDIS, origin: `local default ${DEFAULT_REDIS}` };
  log(`Redis does not answer at ${DEFAULT_REDIS}: starting a private server`);
  const server = await startPrivateRedis();
  return { url: server.url, origin: `private server ${server.url}`, server };
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const token = () => randomBytes(4).toString("hex");

/** `forcePrivate` (--private-services): private servers even when shared ones answer (fsync off: other figures). */
export async function findServices(forcePrivate = false): Promise<Services> {
  const [postgres, redisFound] = await Promise.all([findPostgres(forcePrivate), findRedis(forcePrivate)]);
  const redis = new Redis(redisFound.url, { maxRetriesPerRequest: 3 });
  redis.on("error", () => {});
  const databases = new Set<BenchDatabase>();
  const prefixes = new Set<BenchRedisPrefix>();
  const runTag = token();
  let count = 0;
  let closed = false;

  const scanDelete = async (pattern: string) => {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 2000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== "0");
  };

  return {
    postgresUrl: postgres.url,
    redisUrl: redisFound.url,
    origin: { postgres: postgres.origin, redis: redisFound.origin },
    redis,
    async createDatabase(tag, template) {
      const name = `oah_bench_${runTag}_${tag.replace(/[^a-z0-9]/g, "")}_${++count}`;
      await adminQuery(
        postgres.url,
        `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template.name}` : ""}`,
      );
      const url = new URL(postgres.url);
      url.pathname = `/${name}`;
      const db: BenchDatabase = {
        url: url.toString(),
        name,
        drop: async () => {
          databases.delete(db);
          await adminQuery(postgres.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
      };
      databases.add(db);
      return db;
    },
    async createRedisPrefix(tag) {
      const prefix = `oahbench-${runTag}-${tag.replace(/[^A-Za-z0-9]/g, "")}${++count}`;
      const p: BenchRedisPrefix = {
        prefix,
        clear: async () => {
          prefixes.delete(p);
          // oah keys are `{prefix}:…` (a hash tag), a peer's are `prefix:…`.
          await scanDelete(`{${prefix}}:*`);
          await scanDelete(`${prefix}:*`);
        },
      };
      prefixes.add(p);
      return p;
    },
    async copyOahKeys(from, to) {
      const head = `{${from.prefix}}:`;
      let copied = 0;
      let cursor = "0";
      do {
        if (closed) throw new Error("the bench is shutting down");
        const [next, keys] = await redis.scan(cursor, "MATCH", `${head}*`, "COUNT", 2000);
        if (keys.length > 0) {
          const pipeline = redis.pipeline();
          for (const key of keys) pipeline.copy(key, `{${to.prefix}}:${key.slice(head.length)}`);
          for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
          copied += keys.length;
        }
        cursor = next;
      } while (cursor !== "0");
      return copied;
    },
    async dispose() {
      closed = true;
      const left = [...prefixes];
      for (const p of left) await p.clear().catch(() => {});
      // A copy in flight when the bench was interrupted may land one more batch.
      await new Promise((r) => setTimeout(r, 300));
      for (const p of left) await p.clear().catch(() => {});
      for (const d of [...databases]) await d.drop().catch(() => {});
      redis.disconnect();
      await postgres.server?.stop();
      await redisFound.server?.stop();
    },
  };
}
