import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { waitFor } from "./http";
import { inNamespace } from "./network-namespaces";

/** A TCP port nobody listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface PrivateRedis {
  url: string;
  client: Redis;
  stop(): Promise<void>;
}

export interface PrivateServerOptions {
  /** The address it listens on (127.0.0.1 by default), e.g. a bridge that other network namespaces reach. */
  host?: string;
  /** The network namespace it runs in (a host of its own, reached at `host` through the bridge); this one's by default. */
  netns?: string;
}

export interface PrivateRedisOptions extends PrivateServerOptions {
  /** Every write in the append-only file, fsync'd before it is answered (`appendfsync always`). */
  durable?: boolean;
}

/**
 * A Redis server of this test's own (no persistence, unless `durable`): for faults that would hit
 * every other suite on the shared server, such as FLUSHALL.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const host = options.host ?? "127.0.0.1";
  const port = await freePort();
  const dir = options.durable ? mkdtempSync(join(tmpdir(), "oah-redis-")) : undefined;
  const persistence = dir
    ? ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir]
    : ["--appendonly", "no"];
  // Without a password, protected mode refuses every client not on loopback: it listens on `host` alone anyway.
  const [command, ...args] = inNamespace(options.netns, [
    "redis-server",
    ...["--port", String(port), "--bind", host, "--protected-mode", "no", "--save", "", ...persistence],
  ]);
  const child = spawn(command!, args, { stdio: "ignore" });
  const url = `redis://${host}:${port}`;
  await waitFor(
    "the private Redis",
    async () => {
      const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
      probe.on("error", () => {});
      const up = await probe.connect().then(
        () => true,
        () => false,
      );
      probe.disconnect();
      return up;
    },
    10_000,
    50,
  ).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  const client = new Redis(url);
  client.on("error", () => {});
  return {
    url,
    client,
    stop: async () => {
      client.disconnect();
      child.kill("SIGKILL");
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivatePostgres {
  /** Of its database `postgres`. */
  url: string;
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function postgresBin(name: string): string {
  const versions = execFileSync("ls", ["/usr/lib/postgresql"]).toString().trim().split("\n").sort();
  return join("/usr/lib/postgresql", versions[versions.length - 1]!, "bin", name);
}

/** Runs a PostgreSQL binary as the postgres user when we are root (initdb refuses root), in `netns` when given. */
function asPostgres(bin: string, args: string[], netns?: string): ChildProcess {
  const root = process.getuid?.() === 0;
  const [command, ...rest] = inNamespace(
    netns,
    root ? ["runuser", "-u", "postgres", "--", bin, ...args] : [bin, ...args],
  );
  return spawn(command!, rest, { stdio: "ignore" });
}

function run(bin: string, args: string[], netns?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    asPostgres(bin, args, netns).once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${bin} exited ${code}`)),
    );
  });
}

export interface PrivatePostgresOptions extends PrivateServerOptions {
  /** A network (CIDR) whose clients it trusts besides loopback's, e.g. that of the namespaces behind `host`. */
  clients?: string;
}

/**
 * A throwaway PostgreSQL server of this test's own (initdb, trust, no fsync): for
 * faults that would hit every other suite on the shared server, such as a restart.
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const host = options.host ?? "127.0.0.1";
  const dir = mkdtempSync(join(tmpdir(), "oah-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const port = await freePort();
  await run(postgresBin("initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  if (options.clients) appendFileSync(join(data, "pg_hba.conf"), `host all all ${options.clients} trust\n`);
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=${host} -c fsync=off`;
  const start = () =>
    run(
      postgresBin("pg_ctl"),
      ["-D", data, "-o", serverOptions, "-w", "-l", join(dir, "log"), "start"],
      options.netns,
    );
  const stopServer = () =>
    run(postgresBin("pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], options.netns);
  await start();
  const url = `postgres://postgres@${host}:${port}/postgres`;
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  await probe.end();
  return {
    url,
    restart: async (downMs = 0) => {
      await stopServer();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    stop: async () => {
      await stopServer().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
