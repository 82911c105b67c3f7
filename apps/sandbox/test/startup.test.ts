// @module-tag system

import { createTempDir, runToExit } from "@oah/testing";
import { afterAll, describe, expect, it } from "vitest";

describe("split-mode processes refuse to run without their services", () => {
  const dir = createTempDir();
  afterAll(() => dir.remove());
  const base = { OAH_DATA_DIR: dir.path };

  it.each([
    [
      "oah-sandbox",
      [],
      base,
      /oah-sandbox needs OAH_REDIS_URL \(or OAH_REDIS_CLUSTER_NODES\) and OAH_DATABASE_URL/,
    ],
    [
      "oah-sandbox",
      [],
      { ...base, OAH_REDIS_URL: "redis://127.0.0.1:6379" },
      /oah-sandbox needs OAH_REDIS_URL \(or OAH_REDIS_CLUSTER_NODES\) and OAH_DATABASE_URL/,
    ],
    [
      "oah-api",
      ["--api-only"],
      base,
      /--api-only needs OAH_REDIS_URL \(or OAH_REDIS_CLUSTER_NODES\) and OAH_DATABASE_URL/,
    ],
    [
      "oah-sandbox",
      [],
      {
        ...base,
        OAH_REDIS_URL: "redis://127.0.0.1:6379",
        OAH_DATABASE_URL: "postgres://postgres@127.0.0.1:1/x",
      },
      /cannot open the run store \(PostgreSQL\)/,
    ],
  ] as const)("%s %j with %j", async (binary, args, env, message) => {
    const result = await runToExit(binary, { env, args: [...args] });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(message);
  });

  it("an unreachable Redis is named, with no password in the message", async () => {
    const result = await runToExit("oah-sandbox", {
      env: {
        ...base,
        OAH_REDIS_URL: "redis://:secret-pass@127.0.0.1:1",
        OAH_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/postgres",
      },
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/);
    expect(result.output).not.toContain("secret-pass");
  });

  it("an unreachable Redis Cluster is named by its nodes", async () => {
    const result = await runToExit("oah-sandbox", {
      env: {
        ...base,
        OAH_REDIS_CLUSTER_NODES: "127.0.0.1:1,127.0.0.1:2",
        OAH_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/postgres",
      },
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/cannot reach Redis at the cluster of 127\.0\.0\.1:1, 127\.0\.0\.1:2/);
  }, 30_000);
});
