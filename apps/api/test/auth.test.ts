import { ApiClient, createTempDir, type OahProcess, runToExit, startOah } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TOKEN = "test-token-0123456789abcdef-ghijklmn";

describe("bearer-token auth", () => {
  const dir = createTempDir();
  let api: OahProcess;
  beforeAll(async () => {
    api = await startOah("oah-api", { env: { OAH_DATA_DIR: dir.path, OAH_API_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await api?.stop();
    dir.remove();
  });

  it("refuses calls without the token, or with a wrong one, with 401", async () => {
    for (const client of [
      new ApiClient(api.url),
      new ApiClient(api.url, "wrong-token-0123456789abcdef-ghijklm"),
    ]) {
      const submit = await client.post<{ error: { code: string } }>("/api/v1/sessions/a/runs", {
        input: { steps: [] },
      });
      expect(submit.status).toBe(401);
      expect(submit.body.error.code).toBe("unauthorized");
      expect((await client.get("/api/v1/sessions/a/runs")).status).toBe(401);
      expect(
        (await fetch(`${api.url}/trpc/runs.listBySession?input=%7B%22sessionId%22%3A%22a%22%7D`)).status,
      ).toBe(401);
      expect((await fetch(`${api.url}/metrics`)).status).toBe(401);
    }
    expect((await new ApiClient(api.url).get("/api/v1/openapi.json")).status).toBe(401);
    const authorised = new ApiClient(api.url, TOKEN);
    expect((await authorised.get<{ items: unknown[] }>("/api/v1/sessions/a/runs")).body.items).toEqual([]);
    const openapi = await authorised.get<{ openapi: string; paths: Record<string, unknown> }>(
      "/api/v1/openapi.json",
    );
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe("3.1.0");
    expect(openapi.body.paths).toHaveProperty(["/api/v1/runs/batch"]);
  });

  it("accepts the token and still answers health probes without it", async () => {
    const client = new ApiClient(api.url, TOKEN);
    expect((await client.post("/api/v1/sessions/a/runs", { input: { steps: [] } })).status).toBe(202);
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
    expect(
      (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
  });

  it("refuses to start on a non-loopback address without a token", async () => {
    const result = await runToExit("oah-api", {
      env: { OAH_DATA_DIR: dir.path },
      args: ["--host", "0.0.0.0"],
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/refusing to listen on 0\.0\.0\.0 without OAH_API_TOKEN/);
  });

  it.each([
    ["too short to be a secret", "short"],
    ["one character short", "3f9c2e7a41b8d05c6e2f9a1b7c4d8e0"],
    ["long but all one letter", "a".repeat(40)],
  ])("refuses a token %s, and names the variable", async (_name, token) => {
    const result = await runToExit("oah-api", { env: { OAH_DATA_DIR: dir.path, OAH_API_TOKEN: token } });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(
      /OAH_API_TOKEN: OAH_API_TOKEN must be at least 32 characters, at least 8 of them different/,
    );
  });

  it("slows a client down after repeated wrong tokens: 429 with Retry-After, its token not even read", async () => {
    // Its own server: the failures of this test must not block the others (same client address).
    const own = createTempDir();
    const guarded = await startOah("oah-api", { env: { OAH_DATA_DIR: own.path, OAH_API_TOKEN: TOKEN } });
    try {
      const wrong = new ApiClient(guarded.url, `x${TOKEN.slice(1)}`);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await wrong.get("/api/v1/sessions/a/runs")).status);
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
      const blocked = await fetch(`${guarded.url}/api/v1/sessions/a/runs`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(blocked.headers.get("retry-after"))).toBeLessThanOrEqual(6);
      expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("too_many_attempts");
      // tRPC and the metrics are behind the same check; the health probes are not.
      expect((await fetch(`${guarded.url}/trpc/admin.overview`)).status).toBe(429);
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(429);
      expect((await fetch(`${guarded.url}/healthz`)).status).toBe(200);
    } finally {
      await guarded.stop();
      own.remove();
    }
  });
});
