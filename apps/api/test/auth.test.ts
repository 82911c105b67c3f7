import { ApiClient, createTempDir, type OahProcess, runToExit, startOah } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TOKEN = "test-token-0123456789abcdef";

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
    for (const client of [new ApiClient(api.url), new ApiClient(api.url, "wrong-token-0123456789abcd")]) {
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
    const authorised = new ApiClient(api.url, TOKEN);
    expect((await authorised.get<{ items: unknown[] }>("/api/v1/sessions/a/runs")).body.items).toEqual([]);
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

  it("refuses a token too short to be a secret, and names the variable", async () => {
    const result = await runToExit("oah-api", { env: { OAH_DATA_DIR: dir.path, OAH_API_TOKEN: "short" } });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/OAH_API_TOKEN: OAH_API_TOKEN must be at least 16 characters/);
  });
});
