import pg from "pg";
import { ApiClient } from "./http";
import type { HostNetwork } from "./network-namespaces";
import { createTempDir } from "./paths";
import { createTestDatabase } from "./postgres";
import { type OahBinary, type OahProcess, startOah } from "./processes";
import { clusterTestRedis, createTestRedis, type TestRedis } from "./redis";

export interface SplitDeployment {
  /** The environment every process of the deployment shares. */
  env: Record<string, string>;
  api: OahProcess;
  /** The oah-controller, when the options asked for one. */
  controller: OahProcess | undefined;
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
  /** A Redis of the test's own (a private server); else the shared one. Either way, a prefix of its own. */
  redisUrl?: string;
  /** A Redis Cluster of the test's own (OAH_REDIS_CLUSTER_NODES), with a prefix of its own on it. */
  redisCluster?: { nodes: { host: string; port: number }[]; nodesEnv: string };
  env?: Record<string, string>;
  sandboxEnv?: Record<string, string>;
  sandboxArgs?: string[];
  /** Also an oah-controller, with this environment over the deployment's. */
  controllerEnv?: Record<string, string>;
  /**
   * Each process on a host of its own: in a network namespace of this network, bound to its
   * address there (which needs OAH_API_TOKEN). Its Redis and PostgreSQL must listen on the bridge.
   */
  network?: HostNetwork;
}

/**
 * The split mode of docs/spec.md §2 on this machine: `oah-api --api-only`, N `oah-sandbox`
 * processes and optionally an `oah-controller`, on a fresh PostgreSQL database and a
 * Redis prefix of their own.
 */
export async function startSplitDeployment(options: SplitDeploymentOptions): Promise<SplitDeployment> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase();
  const redis = options.redisCluster
    ? clusterTestRedis(options.redisCluster.nodes)
    : await createTestRedis(options.redisUrl);
  const dir = createTempDir();
  const env: Record<string, string> = {
    OAH_DATABASE_URL: database.url,
    ...(options.redisCluster
      ? { OAH_REDIS_CLUSTER_NODES: options.redisCluster.nodesEnv }
      : { OAH_REDIS_URL: redis.url }),
    OAH_REDIS_PREFIX: redis.prefix,
    OAH_DATA_DIR: dir.path,
    ...options.env,
  };
  const started: OahProcess[] = [];
  let hosts = 0;
  /** Starts `binary`, on a host of its own when there is a network; the label names its namespace. */
  const start = async (binary: OahBinary, env: Record<string, string>, args: string[]) => {
    const host = options.network?.addHost(`${binary.replace(/^oah-/, "")}-${++hosts}`);
    const child = await startOah(binary, {
      env: host ? { ...env, OAH_HOST: host.address } : env,
      args,
      netns: host?.namespace,
    });
    started.push(child);
    return child;
  };
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  // end() resolves once its clients are told to end, not once their connections are closed: the
  // database's drop (WITH FORCE) can still terminate one, and the pool reports it as an error with
  // no one to hear it (an uncaught exception that fails the whole test run).
  db.on("error", () => {});
  const self: SplitDeployment = {
    env,
    api: undefined as unknown as OahProcess,
    controller: undefined,
    client: undefined as unknown as ApiClient,
    sandboxes: [],
    redis,
    db,
    async addSandbox(extraEnv = {}, args = options.sandboxArgs ?? []) {
      const sandbox = await start("oah-sandbox", { ...env, ...options.sandboxEnv, ...extraEnv }, args);
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
    self.api = await start("oah-api", env, ["--api-only"]);
    self.client = new ApiClient(self.api.url, env.OAH_API_TOKEN);
    if (options.controllerEnv)
      self.controller = await start("oah-controller", { ...env, ...options.controllerEnv }, []);
    await Promise.all(Array.from({ length: options.sandboxes }, () => self.addSandbox()));
  } catch (error) {
    await self.dispose();
    throw error;
  }
  return self;
}
