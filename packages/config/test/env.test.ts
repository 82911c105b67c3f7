import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src";

const load = (env: Record<string, string>) => loadConfig(env, "/srv/oah");

describe("loadConfig", () => {
  it("has the documented defaults", () => {
    expect(load({})).toMatchObject({
      host: "127.0.0.1",
      port: 8787,
      sessionLockTtlMs: 30_000,
      staleRunAfterMs: 60_000,
      recoveryStrategy: "fail",
      workersMin: 2,
      workersMax: 16,
      claimAheadRunMs: 5,
      dataDir: "/srv/oah",
    });
  });

  it.each([
    ["claiming ahead turned off", { OAH_CLAIM_AHEAD_RUN_MS: "0" }, { claimAheadRunMs: 0 }],
    [
      "a claim held just under a short lock",
      {
        OAH_CLAIM_AHEAD_RUN_MS: "199",
        OAH_SESSION_LOCK_TTL_MS: "1000",
        OAH_RUN_HEARTBEAT_INTERVAL_MS: "500",
      },
      { claimAheadRunMs: 199 },
    ],
    [
      "Redis makes recovery requeue running runs",
      { OAH_REDIS_URL: "redis://x" },
      { recoveryStrategy: "requeue_running" },
    ],
  ])("accepts %s", (_name, env, expected) => {
    expect(load(env)).toMatchObject(expected);
  });

  it.each([
    ["a negative claim-ahead threshold", { OAH_CLAIM_AHEAD_RUN_MS: "-1" }, /OAH_CLAIM_AHEAD_RUN_MS/],
    [
      "a claim held as long as the lock lives",
      {
        OAH_CLAIM_AHEAD_RUN_MS: "200",
        OAH_SESSION_LOCK_TTL_MS: "1000",
        OAH_RUN_HEARTBEAT_INTERVAL_MS: "500",
      },
      /OAH_CLAIM_AHEAD_RUN_MS \(200\) holds a claim 1000 ms, which must be shorter than OAH_SESSION_LOCK_TTL_MS \(1000\)/,
    ],
    [
      "a heartbeat as slow as the lock",
      { OAH_SESSION_LOCK_TTL_MS: "5000", OAH_RUN_HEARTBEAT_INTERVAL_MS: "5000" },
      /OAH_RUN_HEARTBEAT_INTERVAL_MS must be shorter than OAH_SESSION_LOCK_TTL_MS/,
    ],
    [
      "more workers at least than at most",
      { OAH_WORKERS_MIN: "9", OAH_WORKERS_MAX: "8" },
      /OAH_WORKERS_MIN \(9\) is above/,
    ],
    ["a port that is not a number", { OAH_PORT: "http" }, /OAH_PORT/],
  ])("refuses %s", (_name, env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});
