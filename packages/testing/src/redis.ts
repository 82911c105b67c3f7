import { randomBytes } from "node:crypto";
import { Cluster, Redis } from "ioredis";

/** The server the tests use: OAH_TEST_REDIS_URL, else the local default of these machines. */
export const REDIS_TEST_URL = process.env.OAH_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestRedis {
  url: string;
  /** A prefix of its own, so that suites running at once never share keys. */
  prefix: string;
  client: Redis | Cluster;
  /** Every key of this prefix. */
  keys(): Promise<string[]>;
  dispose(): Promise<void>;
}

export const newTestPrefix = (): string => `oahtest-${randomBytes(5).toString("hex")}`;

/** A fresh prefix on `client`: its keys are those the servers in `scanned` list under it. */
function withPrefix(url: string, client: Redis | Cluster, scanned: () => Redis[]): TestRedis {
  const prefix = newTestPrefix();
  const keys = async () => {
    const found: string[] = [];
    for (const server of scanned()) {
      let cursor = "0";
      do {
        const [next, batch] = await server.scan(cursor, "MATCH", `{${prefix}}:*`, "COUNT", 1000);
        found.push(...batch);
        cursor = next;
      } while (cursor !== "0");
    }
    return found;
  };
  return {
    url,
    prefix,
    client,
    keys,
    dispose: async () => {
      const left = await keys();
      if (left.length > 0) await client.del(...left);
      client.disconnect();
    },
  };
}

/**
 * A prefix of its own on a Redis Cluster of the test's: every key of a prefix lives in
 * one slot (its hash tag), so it is listed and removed on the node that owns it.
 */
export function clusterTestRedis(nodes: { host: string; port: number }[]): TestRedis {
  const client = new Cluster(nodes);
  client.on("error", () => {});
  return withPrefix("", client, () => client.nodes("master"));
}

/** A fresh prefix on the shared test server, or on `url` (a private server). */
export async function createTestRedis(url = REDIS_TEST_URL): Promise<TestRedis> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    // Loud on purpose: a suite that needs Redis must fail, never skip, when it is missing.
    throw new Error(
      `Redis is required by this test and is not reachable at ${url} (${(error as Error).message}). ` +
        "Start it (see .ci/run) or set OAH_TEST_REDIS_URL.",
    );
  }
  return withPrefix(url, client, () => [client]);
}
