import pg from "pg";
import { ApiClient } from "./http";
import { createTempDir } from "./paths";
import { createTestDatabase } from "./postgres";
import { type OahProcess, startOah } from "./processes";
import { clusterTestRedis, createTestRedis, type TestRedis } from "./redis";

export interface SplitDeployment {
  /** The environment every process of the deployment shares. */
  env: Record<string, string>;
  api: OahProcess;
  client: ApiClient;
  sandboxes: OahProcess[];
  redis: TestRedis;
  /** A direct connection to the deployment's database, for checks. */
  db: pg.Pool;
  addSandbox(env?: Record<string, string>, args?: string[]): Promise<OahProcess>;
  dispose(): Promise<void>;
}

export interface SplitDeploymentOptions {
  sandboxes: number;
  /** A database of the test's own (a private server); else a fresh one on the shared test server. */
  databaseUrl?: string;
  /** A Redis of the test's own (a private server); else a prefix of its own on the shared one. */
  redisUrl?: string;
  /** A Redis Cluster of the test's own (OAH_REDIS_CLUSTER_NODES), with a prefix of its own on it. */
  redisCluster?: { nodes: { host: string; port: number }[]; nodesEnv: string };
  env?: Record<string, string>;
  sandboxEnv?: Record<string, string>;
  sandboxArgs?: string[];
}

/**
 * The split mode of SPEC §2 on this machine: `oah-api --api-only` and N
 * `oah-sandbox` processes on a fresh PostgreSQL database and a Redis prefix of
 * their own.
 */
export async function startSplitDeployment(options: SplitDeploymentOptions): Promise<SplitDeployment> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase();
  const redis = options.redisCluster ? clusterTestRedis(options.redisCluster.nodes) : await createTestRedis();
  const dir = createTempDir();
  const env: Record<string, string> = {
    OAH_DATABASE_URL: database.url,
    ...(options.redisCluster
      ? { OAH_REDIS_CLUSTER_NODES: options.redisCluster.nodesEnv }
      : { OAH_REDIS_URL: options.redisUrl ?? redis.url }),
    OAH_REDIS_PREFIX: redis.prefix,
    OAH_DATA_DIR: dir.path,
    ...options.env,
  };
  const started: OahProcess[] = [];
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  const self: SplitDeployment = {
    env,
    api: undefined as unknown as OahProcess,
    client: undefined as unknown as ApiClient,
    sandboxes: [],
    redis,
    db,
    async addSandbox(extraEnv = {}, args = options.sandboxArgs ?? []) {
      const sandbox = await startOah("oah-sandbox", {
        env: { ...env, ...options.sandboxEnv, ...extraEnv },
        args,
      });
      started.push(sandbox);
      self.sandboxes.push(sandbox);
      return sandbox;
    },
    async dispose() {
      await Promise.all(started.map((p) => p.stop("SIGKILL")));
      await db.end();
      await redis.dispose();
      await database.drop();
      dir.remove();
    },
  };
  try {
    self.api = await startOah("oah-api", { env, args: ["--api-only"] });
    started.push(self.api);
    self.client = new ApiClient(self.api.url, env.OAH_API_TOKEN);
    await Promise.all(Array.from({ length: options.sandboxes }, () => self.addSandbox()));
  } catch (error) {
    await self.dispose();
    throw error;
  }
  return self;
}
