// @module-tag unit

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, describeConfig, loadConfig } from "../src";

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
      auditActionsPerMinute: 60,
      claimAheadRunMs: 5,
      fairShare: { weights: {}, caps: {} },
      streamCaps: { total: 1_000, perAddress: 250, perCaller: 100 },
      dataDir: "/srv/oah",
      shell: "on",
      jail: {
        user: "nobody",
        network: "on",
        limits: {
          maxProcs: 256,
          maxFileBytes: 1_073_741_824,
          cpuSeconds: 600,
          memoryBytes: 2_147_483_648,
          maxOutputBytes: 104_857_600,
        },
      },
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
    ["commands turned off", { OAH_SHELL: "off" }, { shell: "off" }],
    [
      "the audited actions a token may make a minute",
      { OAH_AUDIT_ACTIONS_PER_MINUTE: "600" },
      {
        auditActionsPerMinute: 600,
      },
    ],
    [
      "a Redis Cluster, which makes recovery requeue running runs as one Redis does",
      { OAH_REDIS_CLUSTER_NODES: "10.0.0.1:7000, redis-2:7001,[::1]:7002" },
      {
        redisClusterNodes: [
          { host: "10.0.0.1", port: 7000 },
          { host: "redis-2", port: 7001 },
          { host: "::1", port: 7002 },
        ],
        recoveryStrategy: "requeue_running",
      },
    ],
    [
      "a jail without network, as another user, with other limits",
      {
        OAH_STEP_NETWORK: "off",
        OAH_SANDBOX_USER: "oah-steps",
        OAH_STEP_MAX_PROCS: "64",
        OAH_STEP_MEMORY_BYTES: "536870912",
      },
      { jail: { user: "oah-steps", network: "off", limits: { maxProcs: 64, memoryBytes: 536_870_912 } } },
    ],
    [
      "a workspace quota",
      { OAH_WORKSPACE_MAX_BYTES: "10737418240" },
      { jail: { workspaceMaxBytes: 10_737_418_240 } },
    ],
    [
      "workspace weights and caps",
      {
        OAH_WORKSPACE_WEIGHTS: '{"team-a": 3, "team.b": 0.5}',
        OAH_WORKSPACE_MAX_CONCURRENT: '{"team-a": 4}',
      },
      { fairShare: { weights: { "team-a": 3, "team.b": 0.5 }, caps: { "team-a": 4 } } },
    ],
    [
      "model limits, either kind left out",
      {
        OAH_MODEL_LIMITS:
          '{"gpt-4o": {"requestsPerMinute": 500, "tokensPerMinute": 300000}, "*": {"requestsPerMinute": 60}}',
        OAH_MODEL_LIMIT_MAX_WAIT_MS: "30000",
      },
      {
        modelLimits: {
          "gpt-4o": { requestsPerMinute: 500, tokensPerMinute: 300_000 },
          "*": { requestsPerMinute: 60, tokensPerMinute: null },
        },
        modelLimitMaxWaitMs: 30_000,
      },
    ],
    [
      "other caps of event streams",
      { OAH_MAX_STREAMS: "200", OAH_MAX_STREAMS_PER_ADDRESS: "50", OAH_MAX_STREAMS_PER_TOKEN: "5" },
      { streamCaps: { total: 200, perAddress: 50, perCaller: 5 } },
    ],
    [
      "Redis makes recovery requeue running runs",
      { OAH_REDIS_URL: "redis://x" },
      { recoveryStrategy: "requeue_running" },
    ],
  ])("accepts %s", (_name, env, expected) => {
    expect(load(env)).toMatchObject(expected);
  });

  it("takes named tokens with roles, beside OAH_API_TOKEN as the admin token, from JSON or a file", () => {
    const tokens = [
      { name: "ci", token: "c1d2e3f4g5h6i7j8".repeat(2), role: "submitter" },
      { name: "alice", token: "a1b2c3d4e5f6g7h8".repeat(2), role: "operator" },
    ];
    const admin = "0123456789abcdef".repeat(2);
    const config = load({ OAH_API_TOKEN: admin, OAH_API_TOKENS: JSON.stringify(tokens) });
    expect(config.apiTokens).toEqual([{ name: "admin", token: admin, role: "admin" }, ...tokens]);
    const file = join(mkdtempSync(join(tmpdir(), "oah-tokens-")), "tokens.json");
    writeFileSync(file, JSON.stringify(tokens));
    expect(load({ OAH_API_TOKENS: `@${file}` }).apiTokens).toEqual(tokens);
    expect(load({}).apiTokens).toEqual([]);
    // What may be logged names them, and shows no token.
    expect(JSON.stringify(describeConfig(config))).not.toMatch(/c1d2e3|a1b2c3|012345/);
  });

  it.each([
    ["not JSON", "ci:abc", /OAH_API_TOKENS: must be a JSON list/],
    [
      "a file that cannot be read",
      "@/nonexistent/tokens.json",
      /OAH_API_TOKENS: cannot read \/nonexistent\/tokens.json/,
    ],
    [
      "an unknown role",
      JSON.stringify([{ name: "x", token: "c1d2e3f4g5h6i7j8".repeat(2), role: "root" }]),
      /OAH_API_TOKENS\.0\.role/,
    ],
    [
      "a short token",
      JSON.stringify([{ name: "x", token: "short", role: "viewer" }]),
      /at least 32 characters/,
    ],
    [
      "a name twice",
      JSON.stringify([
        { name: "x", token: "c1d2e3f4g5h6i7j8".repeat(2), role: "viewer" },
        { name: "x", token: "k9l8m7n6o5p4q3r2".repeat(2), role: "viewer" },
      ]),
      /names a token twice/,
    ],
    [
      "a token twice",
      JSON.stringify([
        { name: "x", token: "c1d2e3f4g5h6i7j8".repeat(2), role: "viewer" },
        { name: "y", token: "c1d2e3f4g5h6i7j8".repeat(2), role: "operator" },
      ]),
      /gives one token twice/,
    ],
  ])("refuses OAH_API_TOKENS with %s, and shows no token in its message", (_name, value, message) => {
    let error: unknown;
    try {
      load({ OAH_API_TOKENS: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("c1d2e3");
  });

  it("refuses a named token called admin beside OAH_API_TOKEN", () => {
    const tokens = JSON.stringify([{ name: "admin", token: "c1d2e3f4g5h6i7j8".repeat(2), role: "viewer" }]);
    expect(() => load({ OAH_API_TOKEN: "0123456789abcdef".repeat(2), OAH_API_TOKENS: tokens })).toThrow(
      /names a token twice \(or names one "admin"/,
    );
  });

  it("keeps a workspace of any valid name, even one named like an Object property", () => {
    const { fairShare } = load({ OAH_WORKSPACE_WEIGHTS: '{"__proto__": 2, "constructor": 3}' });
    expect(Object.entries(fairShare.weights)).toEqual([
      ["__proto__", 2],
      ["constructor", 3],
    ]);
  });

  it.each([
    ["a negative claim-ahead threshold", { OAH_CLAIM_AHEAD_RUN_MS: "-1" }, /OAH_CLAIM_AHEAD_RUN_MS/],
    ["an unknown shell mode", { OAH_SHELL: "yes" }, /OAH_SHELL/],
    ["a cluster node without a port", { OAH_REDIS_CLUSTER_NODES: "10.0.0.1" }, /"10.0.0.1" is not host:port/],
    ["a cluster of no node", { OAH_REDIS_CLUSTER_NODES: " , " }, /names no node/],
    [
      "one Redis and a cluster at once",
      { OAH_REDIS_URL: "redis://x", OAH_REDIS_CLUSTER_NODES: "a:1" },
      /OAH_REDIS_URL and OAH_REDIS_CLUSTER_NODES name two Redis/,
    ],
    ["a jail user with a slash", { OAH_SANDBOX_USER: "../root" }, /OAH_SANDBOX_USER/],
    ["a process limit too small to start a shell", { OAH_STEP_MAX_PROCS: "2" }, /OAH_STEP_MAX_PROCS/],
    [
      "a workspace quota too small for a file system",
      { OAH_WORKSPACE_MAX_BYTES: "1048576" },
      /OAH_WORKSPACE_MAX_BYTES/,
    ],
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
      "runs stale before their host's next heartbeat lists them",
      { OAH_STALE_RUN_AFTER_MS: "1000", OAH_RUN_HEARTBEAT_INTERVAL_MS: "500" },
      /OAH_STALE_RUN_AFTER_MS \(1000\) must be longer than two heartbeat intervals/,
    ],
    [
      "more workers at least than at most",
      { OAH_WORKERS_MIN: "9", OAH_WORKERS_MAX: "8" },
      /OAH_WORKERS_MIN \(9\) is above/,
    ],
    ["a port that is not a number", { OAH_PORT: "http" }, /OAH_PORT/],
    ["no audited action a minute", { OAH_AUDIT_ACTIONS_PER_MINUTE: "0" }, /OAH_AUDIT_ACTIONS_PER_MINUTE/],
    [
      "weights that are not JSON",
      { OAH_WORKSPACE_WEIGHTS: "team-a=3" },
      /OAH_WORKSPACE_WEIGHTS: must be a JSON object/,
    ],
    ["weights as a list", { OAH_WORKSPACE_WEIGHTS: "[3]" }, /OAH_WORKSPACE_WEIGHTS: must be a JSON object/],
    [
      "a weight of 0",
      { OAH_WORKSPACE_WEIGHTS: '{"a": 0}' },
      /OAH_WORKSPACE_WEIGHTS: "a": must be weights above 0/,
    ],
    ["a negative weight", { OAH_WORKSPACE_WEIGHTS: '{"a": -1}' }, /OAH_WORKSPACE_WEIGHTS/],
    ["an infinite weight", { OAH_WORKSPACE_WEIGHTS: '{"a": 1e400}' }, /OAH_WORKSPACE_WEIGHTS/],
    ["a weight as text", { OAH_WORKSPACE_WEIGHTS: '{"a": "2"}' }, /OAH_WORKSPACE_WEIGHTS/],
    [
      "a weight for a name no workspace can have",
      { OAH_WORKSPACE_WEIGHTS: '{"../etc": 2}' },
      /OAH_WORKSPACE_WEIGHTS: "..\/etc" is not a workspace id/,
    ],
    [
      "a cap that is not a whole number",
      { OAH_WORKSPACE_MAX_CONCURRENT: '{"a": 1.5}' },
      /OAH_WORKSPACE_MAX_CONCURRENT: "a": must be whole numbers of 1 or more/,
    ],
    ["a cap of 0", { OAH_WORKSPACE_MAX_CONCURRENT: '{"a": 0}' }, /OAH_WORKSPACE_MAX_CONCURRENT/],
    [
      "model limits that are not JSON",
      { OAH_MODEL_LIMITS: "gpt-4o=500" },
      /OAH_MODEL_LIMITS: must be a JSON object/,
    ],
    ["a limit of 0 a minute", { OAH_MODEL_LIMITS: '{"m": {"requestsPerMinute": 0}}' }, /OAH_MODEL_LIMITS/],
    ["a limit of an unknown kind", { OAH_MODEL_LIMITS: '{"m": {"rpm": 10}}' }, /OAH_MODEL_LIMITS/],
    ["no event stream at all", { OAH_MAX_STREAMS_PER_TOKEN: "0" }, /OAH_MAX_STREAMS_PER_TOKEN/],
  ])("refuses %s", (_name, env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});
