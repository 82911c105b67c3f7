// @module-tag system

import { createTestRedis, runToExit, startOah, type TestRedis } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REDIS = "redis://127.0.0.1:6379";
const POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
const TOKEN = "controller-test-token-0123456789abcdef";

describe("oah-controller's command line and start-up", () => {
  it.each([
    [
      "without Redis nor PostgreSQL",
      {},
      /needs OAH_REDIS_URL \(or OAH_REDIS_CLUSTER_NODES\) and OAH_DATABASE_URL/,
    ],
    ["without PostgreSQL", { OAH_REDIS_URL: REDIS }, /needs OAH_REDIS_URL .* and OAH_DATABASE_URL/],
    [
      "with an unreachable PostgreSQL",
      { OAH_REDIS_URL: REDIS, OAH_DATABASE_URL: "postgres://postgres:pw@127.0.0.1:1/x" },
      /cannot reach PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x/,
    ],
    [
      "with an unreachable Redis",
      { OAH_REDIS_URL: "redis://127.0.0.1:1", OAH_DATABASE_URL: POSTGRES },
      /cannot reach Redis/,
    ],
    [
      "with min above max",
      { OAH_CONTROLLER_MIN_REPLICAS: "5", OAH_CONTROLLER_MAX_REPLICAS: "2" },
      /OAH_CONTROLLER_MIN_REPLICAS \(5\) is above OAH_CONTROLLER_MAX_REPLICAS \(2\)/,
    ],
    ["with an unknown target", { OAH_CONTROLLER_TARGET: "nomad" }, /OAH_CONTROLLER_TARGET/],
    [
      "with the kubernetes target and no workload",
      { OAH_CONTROLLER_TARGET: "kubernetes" },
      /needs OAH_K8S_NAMESPACE and OAH_K8S_NAME/,
    ],
    [
      "on a public address without a token",
      { OAH_HOST: "0.0.0.0", OAH_REDIS_URL: REDIS, OAH_DATABASE_URL: POSTGRES },
      /without OAH_API_TOKEN/,
    ],
  ])("exits 1 %s, saying why", async (_, env, message) => {
    const result = await runToExit("oah-controller", { env });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(message);
    expect(result.output).not.toContain(":pw@");
  });

  it("prints its usage for --help, and exits 2 on a bad argument", async () => {
    const help = await runToExit("oah-controller", { args: ["--help"] });
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/usage: oah-controller \[--port N\]/);
    const bad = await runToExit("oah-controller", { args: ["--port", "99999"] });
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/--port must be 0-65535/);
  });

  describe("its server", () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await createTestRedis();
    });
    afterAll(async () => {
      await redis.dispose();
    });

    it("answers its probes, and /snapshot and /metrics only with the token when one is set", async () => {
      const controller = await startOah("oah-controller", {
        env: {
          OAH_REDIS_URL: redis.url,
          OAH_REDIS_PREFIX: redis.prefix,
          OAH_DATABASE_URL: POSTGRES,
          OAH_API_TOKEN: TOKEN,
          OAH_CONTROLLER_TARGET: "none",
        },
      });
      try {
        expect((await fetch(`${controller.url}/healthz`)).status).toBe(200);
        expect((await fetch(`${controller.url}/readyz`)).status).toBe(200);
        expect((await fetch(`${controller.url}/snapshot`)).status).toBe(401);
        expect((await fetch(`${controller.url}/metrics`)).status).toBe(401);
        expect((await fetch(`${controller.url}/other`)).status).toBe(404);
        const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
        const snapshot = (await (await fetch(`${controller.url}/snapshot`, auth)).json()) as {
          leaderId: string;
        };
        expect(snapshot).toMatchObject({ leader: true, target: "none", desiredReplicas: 1 });
        expect(snapshot.leaderId).toMatch(/^controller-/);
        const metrics = await (await fetch(`${controller.url}/metrics`, auth)).text();
        expect(metrics).toMatch(/^oah_controller_desired_replicas 1$/m);
        expect(metrics).toMatch(/^oah_controller_leader 1$/m);
        // SIGTERM gives the lease up at once.
        expect(await controller.stop("SIGTERM")).toBe(0);
      } finally {
        await controller.stop("SIGKILL");
      }
    });
  });
});
