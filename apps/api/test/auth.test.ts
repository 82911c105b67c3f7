// @module-tag system

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

  it("slows a wrong token down (429 with Retry-After), then every wrong token past the guessing budget; a valid token from the same address is never refused", async () => {
    // Its own server: the budget this test spends must not slow the others down.
    const own = createTempDir();
    const guarded = await startOah("oah-api", { env: { OAH_DATA_DIR: own.path, OAH_API_TOKEN: TOKEN } });
    const valid = { authorization: `Bearer ${TOKEN}` };
    const wrong = { authorization: `Bearer x${TOKEN.slice(1)}` };
    const status = async (path: string, headers: Record<string, string>) =>
      (await fetch(`${guarded.url}${path}`, { headers })).status;
    try {
      // The guessing budget refills from its first failure, the first of these.
      const firstFailure = Date.now();
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push(await status("/api/v1/sessions/a/runs", wrong));
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
      const blocked = await fetch(`${guarded.url}/api/v1/sessions/a/runs`, { headers: wrong });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(blocked.headers.get("retry-after"))).toBeLessThanOrEqual(6);
      expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("too_many_attempts");
      // tRPC and the metrics are behind the same check; the health probes are not.
      expect(await status("/trpc/admin.overview", wrong)).toBe(429);
      expect(await status("/metrics", wrong)).toBe(429);
      expect(await status("/healthz", wrong)).toBe(200);
      // The valid token from the same address, over HTTP, tRPC and /metrics alike.
      expect(await status("/api/v1/sessions/a/runs", valid)).toBe(200);
      expect(await status("/trpc/admin.overview", valid)).toBe(200);
      expect(await status("/metrics", valid)).toBe(200);

      // 400 different wrong tokens, 50 at a time, with the valid token among the last ones: the
      // guessing budget (100, 10 of them spent above, then one back every 100 ms) refuses the rest.
      const guesses: number[] = [];
      for (let i = 0; i < 400; i += 50) {
        const batch = Array.from({ length: 50 }, (_, j) =>
          status("/api/v1/sessions/a/runs", { authorization: `Bearer guess-${i + j}-${TOKEN}` }),
        );
        guesses.push(...(await Promise.all(batch)));
      }
      const elapsedMs = Date.now() - firstFailure;
      const during = await Promise.all([
        ...Array.from({ length: 50 }, (_, j) =>
          status("/trpc/admin.overview", { authorization: `Bearer late-${j}` }),
        ),
        ...Array.from({ length: 5 }, () => status("/api/v1/sessions/a/runs", valid)),
      ]);
      expect(new Set(guesses)).toEqual(new Set([401, 429]));
      const admitted = guesses.filter((s) => s === 401).length;
      expect(admitted).toBeGreaterThanOrEqual(90);
      expect(admitted).toBeLessThanOrEqual(90 + Math.ceil(elapsedMs / 100) + 1);
      expect(during.slice(0, 50)).toContain(429);
      expect(during.slice(50)).toEqual(Array(5).fill(200));
      expect(
        (await new ApiClient(guarded.url, TOKEN).post("/api/v1/sessions/a/runs", { input: { steps: [] } }))
          .status,
      ).toBe(202);
    } finally {
      await guarded.stop();
      own.remove();
    }
  });
});
