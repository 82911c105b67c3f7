// @module-tag system

import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:net";
import { createClient, type OahClient } from "@oah/client";
import {
  createHostNetwork,
  expectAllCompletedInOrder,
  type HostNetwork,
  type PrivatePostgres,
  type PrivateRedis,
  type SplitDeployment,
  startPrivatePostgres,
  startPrivateRedis,
  startSplitDeployment,
  waitFor,
  waitForQuiet,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";

const SESSIONS = 40;
const RUNS = 5;
const SLEEP = [{ type: "sleep" as const, ms: 200 }];
const HOSTS = ["sandbox-a", "sandbox-b"] as const;

/** Decides and publishes only, ticking often, so that its report is in the pool soon. */
const CONTROLLER = { OAH_CONTROLLER_TARGET: "none", OAH_CONTROLLER_INTERVAL_MS: "250" };
const SANDBOX = { OAH_WORKERS_MIN: "6", OAH_WORKERS_MAX: "6" };

const clientOf = (d: SplitDeployment): OahClient =>
  createClient({ baseUrl: d.api.url, token: d.env.OAH_API_TOKEN });

const pool = (d: SplitDeployment) => clientOf(d).pool();

/** `runs` more runs for each session of `batch`: sessions side by side, each one's runs in order. */
async function submitRuns(d: SplitDeployment, batch: string, runs: number): Promise<void> {
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      for (let run = 0; run < runs; run++)
        await clientOf(d).submit(`${batch}-${s}`, { input: { steps: SLEEP } });
    }),
  );
}

/** Runs per sandbox host, from the worker ids (`<hostId>/w<n>`) of the runs table. */
async function runsPerHost(d: SplitDeployment, where = "true", params: unknown[] = []) {
  const { rows } = await d.db.query<{ host: string; n: number }>(
    `SELECT split_part(worker_id, '/', 1) AS host, count(*)::int AS n FROM runs WHERE ${where} GROUP BY 1`,
    params,
  );
  return Object.fromEntries(rows.map((r) => [r.host, r.n]));
}

function listenOnLoopback(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.end());
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ server, port: typeof address === "object" && address ? address.port : 0 });
    });
  });
}

/**
 * Issue 17, split across hosts: the API, the controller and two sandboxes each in a network
 * namespace of its own, reaching Redis and PostgreSQL by the bridge's address only.
 */
describe("split across hosts", () => {
  let network: HostNetwork | undefined;
  let redis: PrivateRedis | undefined;
  let postgres: PrivatePostgres | undefined;
  let d: SplitDeployment | undefined;
  let loopback: Server | undefined;
  afterEach(async () => {
    await d?.dispose();
    await redis?.stop();
    await postgres?.stop();
    loopback?.close();
    network?.dispose();
    d = redis = postgres = loopback = network = undefined;
  });

  it("runs every run once and in order on two sandbox hosts, and on one alone once the other is cordoned", async () => {
    network = createHostNetwork();
    redis = await startPrivateRedis({ host: network.bridgeAddress });
    postgres = await startPrivatePostgres({ host: network.bridgeAddress, clients: network.subnet });
    d = await startSplitDeployment({
      sandboxes: 0,
      network,
      redisUrl: redis.url,
      databaseUrl: postgres.url,
      // Binding a namespace's address, not loopback, takes a token.
      env: { OAH_API_TOKEN: randomBytes(32).toString("hex") },
      controllerEnv: CONTROLLER,
      sandboxEnv: SANDBOX,
    });
    const sandboxes = await Promise.all(HOSTS.map((id) => d!.addSandbox({ OAH_HOST_ID: id })));

    // Each process listens on an address of its own on the bridge, and the test reaches the API there.
    const addresses = [d.api, d.controller!, ...sandboxes].map((p) => new URL(p.url).hostname);
    expect(new Set(addresses).size).toBe(4);
    const onBridge = (address: string) => address.replace(/\.\d+$/, ".0/24") === network!.subnet;
    expect(addresses.filter((address) => !onBridge(address))).toEqual([]);

    // The only path from a sandbox to Redis is the bridge: its 127.0.0.1 is its own, not the root's.
    const redisPort = Number(new URL(redis.url).port);
    const root = await listenOnLoopback();
    loopback = root.server;
    const inside = sandboxes[0]!.netns!;
    expect(await network.tryConnect(inside, network.bridgeAddress, redisPort)).toBe("connected");
    expect(await network.tryConnect(inside, "127.0.0.1", root.port)).toBe("ECONNREFUSED");
    expect(await network.tryConnect(inside, "127.0.0.1", redisPort)).toBe("ECONNREFUSED");
    expect(await network.tryConnect(inside, "127.0.0.1", 6379)).toBe("ECONNREFUSED");

    await submitRuns(d, "first", RUNS);
    await waitForQuiet(d, 30_000);
    await expectAllCompletedInOrder(d, SESSIONS * RUNS);
    const first = await runsPerHost(d);
    expect(Object.keys(first).sort()).toEqual([...HOSTS]);

    const seen = await waitFor("both hosts and the leading controller in the pool", async () => {
      const overview = await pool(d!);
      return overview.hosts.length === 2 && overview.controller?.actualReplicas === 2 ? overview : undefined;
    });
    expect(seen.hosts.map((h) => [h.hostId, h.state]).sort()).toEqual(HOSTS.map((id) => [id, "active"]));
    expect(seen.controller).toMatchObject({ target: "none", actualReplicas: 2 });
    expect(seen.controller!.leaderId).toContain(`-${d.controller!.child.pid}-`);
    expect(seen.controller!.desiredReplicas).toBeGreaterThanOrEqual(1);

    // A second batch: sandbox-a is cordoned while it is being submitted and run; what starts after
    // runs on sandbox-b, which includes the last runs of each session, held back until then.
    const held = 2;
    const submitting = submitRuns(d, "second", RUNS - held);
    await waitFor("part of the second batch to complete", async () => {
      const { rows } = await d!.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE session_id LIKE 'second-%' AND status = 'completed'",
      );
      return rows[0]!.n >= SESSIONS;
    });
    expect(await clientOf(d).cordon(HOSTS[0])).toEqual({ hostId: HOSTS[0], state: "cordoned" });
    await waitFor("sandbox-a cordoned, with nothing in hand", async () => {
      const host = (await pool(d!)).hosts.find((h) => h.hostId === HOSTS[0]);
      if (host?.state !== "cordoned" || host.busyWorkers !== 0) return false;
      const { rows } = await d!.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE worker_id LIKE $1 AND status <> 'completed'",
        [`${HOSTS[0]}/%`],
      );
      return rows[0]!.n === 0;
    });
    const cordonedAt = Date.now();
    const before = await runsPerHost(d);

    await submitting;
    await submitRuns(d, "second", held);
    await waitForQuiet(d, 30_000);
    await expectAllCompletedInOrder(d, 2 * SESSIONS * RUNS);
    const after = await runsPerHost(d, "started_at > $1", [cordonedAt]);
    expect(Object.keys(after)).toEqual([HOSTS[1]]);
    expect(after[HOSTS[1]]).toBeGreaterThanOrEqual(SESSIONS * held);
    expect((await runsPerHost(d))[HOSTS[0]]).toBe(before[HOSTS[0]]);

    const final = await pool(d);
    expect(final.hosts.map((h) => [h.hostId, h.state]).sort()).toEqual([
      [HOSTS[0], "cordoned"],
      [HOSTS[1], "active"],
    ]);
  }, 60_000);
});
