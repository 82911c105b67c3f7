import { type ChildProcess, execFile, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { Cluster, Redis } from "ioredis";
import { waitFor } from "./http";
import { createTempDir } from "./paths";

const run = promisify(execFile);

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/** A port whose cluster bus port (+10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (taken.has(port) || !(await portFree(port)) || !(await portFree(port + 10_000))) continue;
    taken.add(port);
    return port;
  }
}

export interface TestRedisCluster {
  nodes: { host: string; port: number }[];
  /** What OAH_REDIS_CLUSTER_NODES takes. */
  nodesEnv: string;
  /** A client of the test's own. */
  client: Cluster;
  /** FLUSHALL on every master: the whole cluster forgets everything. */
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real Redis Cluster of `masters` nodes (no replicas, no persistence) on ports of its
 * own, made by `redis-cli --cluster create`; ready once every node says cluster_state:ok.
 */
export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  const dir = createTempDir("oah-cluster-");
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < masters; i++) ports.push(await clusterPort(taken));
  const children: ChildProcess[] = ports.map((port) =>
    spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        join(dir.path, `nodes-${port}.conf`),
        "--cluster-node-timeout",
        "3000",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir.path,
      ],
      { stdio: "ignore" },
    ),
  );
  const stop = async () => {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dir.path, { recursive: true, force: true });
  };
  try {
    const probes = ports.map((port) => {
      const probe = new Redis(port, "127.0.0.1", { lazyConnect: true, retryStrategy: () => 100 });
      probe.on("error", () => {});
      return probe;
    });
    await waitFor(
      "the cluster's nodes",
      async () =>
        (
          await Promise.all(
            probes.map((p) =>
              p.ping().then(
                () => true,
                () => false,
              ),
            ),
          )
        ).every(Boolean),
      10_000,
      50,
    );
    await run("redis-cli", ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-yes"]);
    await waitFor(
      "cluster_state:ok on every node",
      async () =>
        (await Promise.all(probes.map((p) => p.cluster("INFO")))).every((info) =>
          /cluster_state:ok/.test(String(info)),
        ),
      20_000,
      100,
    );
    for (const probe of probes) probe.disconnect();
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = ports.map((port) => ({ host: "127.0.0.1", port }));
  const client = new Cluster(nodes);
  client.on("error", () => {});
  return {
    nodes,
    nodesEnv: nodes.map((n) => `${n.host}:${n.port}`).join(","),
    client,
    flushAll: async () => {
      await Promise.all(client.nodes("master").map((node) => node.flushall()));
    },
    stop: async () => {
      client.disconnect();
      await stop();
    },
  };
}
