import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  ADMIN_TOKEN_NAME,
  claimAheadPolicy,
  type FairShare,
  HOOK_EVENTS,
  HOST_ID_PATTERN,
  isVariedSecret,
  type NamedToken,
  RECOVERY_STRATEGIES,
  type RecoveryStrategy,
  ROLES,
  STEP_NETWORK_MODES,
  type StepLimits,
  type StepNetwork,
  WAIT_MODES,
  type WaitMode,
  WORKSPACE_ID_PATTERN,
} from "@oah/core";
import { z } from "zod";

/**
 * How a host runs the commands of runs: `on`, in a sandbox (refusing to start where none can be
 * made); `off`, refused at submission and never executed (configured OAH_HOOKS commands still run,
 * sandboxed); `unsafe-host`, unconfined, as the host's own user, for a developer's machine only.
 */
export const SHELL_MODES = ["on", "off", "unsafe-host"] as const;
export type ShellMode = (typeof SHELL_MODES)[number];

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const text = z.string().trim().min(1);

/** A hook of OAH_HOOKS: a command (run in the run's workspace) or an HTTP endpoint (POSTed JSON). */
const hookSchema = z
  .strictObject({
    name: z.string().min(1).max(64).optional(),
    on: z.enum(HOOK_EVENTS),
    command: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    timeoutMs: z.int().min(1).optional(),
  })
  .refine((h) => (h.command === undefined) !== (h.url === undefined), {
    error: "a hook has either a command or a url",
  });
export type HookConfig = z.infer<typeof hookSchema>;

const hooksJson = z
  .string()
  .transform((value, ctx) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON array of hooks" });
      return z.NEVER;
    }
  })
  .pipe(z.array(hookSchema).max(64));

/**
 * A JSON object of workspace ids to numbers that `value` accepts (`what` says which);
 * built with Object.fromEntries, so that any workspace id, "__proto__" too, is kept.
 */
function workspaceNumbersJson(value: z.ZodType<number>, what: string) {
  return z.string().transform((text, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({ code: "custom", message: `must be a JSON object of workspace ids to ${what}` });
      return z.NEVER;
    }
    const entries: [string, number][] = [];
    for (const [workspaceId, raw] of Object.entries(parsed)) {
      const number = value.safeParse(raw);
      if (!WORKSPACE_ID_PATTERN.test(workspaceId))
        ctx.addIssue({ code: "custom", message: `"${workspaceId}" is not a workspace id` });
      else if (!number.success)
        ctx.addIssue({ code: "custom", message: `"${workspaceId}": must be ${what}` });
      else entries.push([workspaceId, number.data]);
    }
    return Object.fromEntries(entries);
  });
}

const TOKEN_RULE = "must be at least 32 characters, at least 8 of them different (e.g. openssl rand -hex 32)";

/** One token of OAH_API_TOKENS. Its value is never in a message: only its name and place. */
const namedTokenSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, { error: "a name is 1-64 characters of A-Z a-z 0-9 . _ : -" }),
  token: z.string().refine((token) => isVariedSecret(token), { error: `a token ${TOKEN_RULE}` }),
  role: z.enum(ROLES),
});

/** OAH_API_TOKENS: a JSON list of named tokens with their roles, or `@<file>` that holds one. */
const apiTokensJson = z
  .string()
  .transform((value, ctx) => {
    let text = value;
    if (value.startsWith("@")) {
      try {
        text = readFileSync(value.slice(1), "utf8");
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          message: `cannot read ${value.slice(1)}: ${(error as Error).message}`,
        });
        return z.NEVER;
      }
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: "custom",
        message: 'must be a JSON list of {"name", "token", "role"}, or @<file> with one',
      });
      return z.NEVER;
    }
  })
  .pipe(z.array(namedTokenSchema).min(1).max(1_000));

/** The environment of SPEC §12, and a few additions of ours (marked). Empty values count as unset. */
const envSchema = z.object({
  OAH_HOST: text.default("127.0.0.1"),
  OAH_PORT: int(0, 65_535).default(8787),
  OAH_WEB_PORT: int(0, 65_535).default(3000),
  OAH_DATABASE_URL: text.optional(),
  OAH_DATA_DIR: text.optional(),
  OAH_REDIS_URL: text.optional(),
  // Ours: a Redis Cluster instead of one server: its nodes, host:port, comma-separated (any of them will do).
  OAH_REDIS_CLUSTER_NODES: z
    .string()
    .transform((value, ctx) => {
      const nodes = value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => {
          const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(part);
          if (!match || Number(match[2]) > 65_535) {
            ctx.addIssue({ code: "custom", message: `"${part}" is not host:port` });
            return null;
          }
          return { host: match[1]!.replace(/^\[|\]$/g, ""), port: Number(match[2]) };
        });
      if (nodes.length === 0)
        ctx.addIssue({ code: "custom", message: "names no node (host:port, comma-separated)" });
      return nodes.filter((n): n is { host: string; port: number } => n !== null);
    })
    .optional(),
  OAH_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/)
    .default("oah"),
  OAH_API_TOKEN: z
    .string()
    .refine((token) => isVariedSecret(token), { error: `OAH_API_TOKEN ${TOKEN_RULE}` })
    .optional(),
  // Named tokens with roles (docs/spec.md §13); OAH_API_TOKEN stays the single admin token beside them.
  OAH_API_TOKENS: apiTokensJson.optional(),
  OAH_SESSION_LOCK_TTL_MS: int(1_000).default(30_000),
  OAH_RUN_HEARTBEAT_INTERVAL_MS: int(100).default(5_000),
  OAH_STALE_RUN_AFTER_MS: int(1_000).optional(),
  OAH_RECOVERY_SCAN_INTERVAL_MS: int(100).default(15_000),
  OAH_STALE_RUN_RECOVERY_STRATEGY: z.enum(RECOVERY_STRATEGIES).optional(),
  OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS: int(0, 1_000).default(3),
  OAH_RUN_TIMEOUT_MS: int(1).default(1_800_000),
  OAH_TOOL_TIMEOUT_MS: int(1).default(120_000),
  OAH_MODEL_TIMEOUT_MS: int(1).default(120_000),
  OAH_HOOK_TIMEOUT_MS: int(1).default(10_000),
  OAH_DRAIN_TIMEOUT_MS: int(0).default(30_000),
  OAH_WORKERS_MIN: int(0, 1_024).default(2),
  OAH_WORKERS_MAX: int(1, 1_024).default(16),
  OAH_WORKSPACE_ROOT: text.optional(),
  OAH_API_URL: text.optional(),
  // Ours: the model endpoint of `model` steps and the agent executor (OpenAI-compatible), and hooks.
  OAH_MODEL_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OAH_MODEL_NAME: text.default("default"),
  OAH_MODEL_API_KEY: text.optional(),
  OAH_HOOKS: hooksJson.optional(),
  // Pool sizing (SPEC §8: each default overridable by an OAH_POOL_* variable).
  OAH_POOL_READY_SESSIONS_PER_CAPACITY_UNIT: z.coerce.number().positive().default(1),
  OAH_POOL_RESERVED_SUBAGENT_CAPACITY: int(0, 1_024).default(1),
  OAH_POOL_BUSY_RATIO_THRESHOLD: z.coerce.number().min(0).max(1).default(0.75),
  OAH_POOL_AGE_THRESHOLD_MS: int(0).default(2_000),
  OAH_POOL_SCALE_INTERVAL_MS: int(50).default(1_000),
  OAH_POOL_SCALE_UP_COOLDOWN_MS: int(0).default(1_000),
  OAH_POOL_SCALE_DOWN_COOLDOWN_MS: int(0).default(15_000),
  OAH_POOL_SCALE_UP_SAMPLE_WINDOW: int(1, 1_000).default(2),
  OAH_POOL_SCALE_DOWN_SAMPLE_WINDOW: int(1, 1_000).default(3),
  // Ours: the sandbox's probe port, the largest request body, and the log level.
  OAH_SANDBOX_PORT: int(0, 65_535).default(8788),
  OAH_MAX_BODY_BYTES: int(1_024).default(1_048_576),
  // Ours: how often an idle HTTP event stream gets a keep-alive comment (SPEC §12: 15 s).
  OAH_STREAM_KEEPALIVE_MS: int(100, 600_000).default(15_000),
  OAH_LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  // How many runs a second a bulk job acts on at most, so that the workers keep their share of the store.
  OAH_BULK_RUNS_PER_SECOND: int(1, 100_000).default(500),
  // How long the audit log of operator actions keeps an entry, in days; 0: for ever (docs/spec.md §13).
  OAH_AUDIT_RETENTION_DAYS: int(0, 36_500).default(90),
  // Parked waits (docs/spec.md §6): a run waiting for a tool result frees its slot (park) or keeps it (hold).
  OAH_WAIT_MODE: z.enum(WAIT_MODES).default("park"),
  // Ours: a slot whose last runs each executed in less than this claims its next session ahead (0: never).
  OAH_CLAIM_AHEAD_RUN_MS: int(0, 60_000).default(5),
  // Ours: commands of runs (shell steps, hook steps, the agent's shell tool) and their sandbox (docs/security).
  OAH_SHELL: z.enum(SHELL_MODES).default("on"),
  OAH_SANDBOX_USER: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$/, { error: "must be a user name or a numeric uid" })
    .default("nobody"),
  OAH_STEP_NETWORK: z.enum(STEP_NETWORK_MODES).default("on"),
  OAH_STEP_MAX_PROCS: int(8, 1_000_000).default(256),
  OAH_STEP_MAX_FILE_BYTES: int(65_536).default(1_073_741_824),
  OAH_STEP_CPU_SECONDS: int(1).default(600),
  OAH_STEP_MEMORY_BYTES: int(16_777_216).default(2_147_483_648),
  OAH_STEP_MAX_OUTPUT_BYTES: int(1_048_576).default(104_857_600),
  // Ours (issue 17): this host's id (a pod's name), and whether a worker host exits once drained.
  OAH_HOST_ID: z
    .string()
    .regex(HOST_ID_PATTERN, { error: "must be 1-128 characters of A-Z a-z 0-9 . _ : -" })
    .optional(),
  OAH_EXIT_WHEN_DRAINED: z.enum(["0", "1", "false", "true"]).default("0"),
  // Ours: the fair share of the workers between workspaces (SPEC §5): weights, and caps on held sessions.
  OAH_WORKSPACE_WEIGHTS: workspaceNumbersJson(
    // A weight so small that its stride, 1 / weight, is no longer finite would stop its passes.
    z
      .number()
      .positive()
      .refine((weight) => Number.isFinite(1 / weight)),
    "weights above 0",
  ).optional(),
  OAH_WORKSPACE_MAX_CONCURRENT: workspaceNumbersJson(z.int().min(1), "whole numbers of 1 or more").optional(),
});

export interface OahConfig {
  /** OAH_HOST_ID; made from the role, the machine and the pid when unset. */
  hostId: string | undefined;
  /** A worker host that has drained under a drain order exits (what the controller's own sandboxes do). */
  exitWhenDrained: boolean;
  host: string;
  port: number;
  webPort: number;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /** OAH_REDIS_CLUSTER_NODES: a Redis Cluster, reached through any of these. */
  redisClusterNodes: { host: string; port: number }[] | undefined;
  redisPrefix: string;
  /**
   * Every token the API accepts, with its name and role: OAH_API_TOKENS, and OAH_API_TOKEN as
   * the admin token named `admin`. None: the API answers only on loopback, to anyone.
   */
  apiTokens: NamedToken[];
  sessionLockTtlMs: number;
  heartbeatIntervalMs: number;
  staleRunAfterMs: number;
  recoveryScanIntervalMs: number;
  recoveryStrategy: RecoveryStrategy;
  recoveryMaxAttempts: number;
  runTimeoutMs: number;
  toolTimeoutMs: number;
  modelTimeoutMs: number;
  hookTimeoutMs: number;
  model: { baseUrl: string | undefined; name: string; apiKey: string | undefined };
  hooks: HookConfig[];
  drainTimeoutMs: number;
  workersMin: number;
  workersMax: number;
  workspaceRoot: string;
  apiUrl: string;
  pool: {
    readySessionsPerCapacityUnit: number;
    reservedSubagentCapacity: number;
    busyRatioThreshold: number;
    ageThresholdMs: number;
    scaleIntervalMs: number;
    upCooldownMs: number;
    downCooldownMs: number;
    upSampleWindow: number;
    downSampleWindow: number;
  };
  sandboxPort: number;
  maxBodyBytes: number;
  /** How often an idle HTTP event stream gets a keep-alive comment. */
  streamKeepAliveMs: number;
  logLevel: z.infer<typeof envSchema>["OAH_LOG_LEVEL"];
  /** Slots whose last runs each executed in less than this claim ahead; 0: never. */
  claimAheadRunMs: number;
  /** How runs wait for a client's tool result: parked (their slot freed) or held. */
  waitMode: WaitMode;
  /** How long the audit log keeps an entry, in days; 0: for ever. */
  auditRetentionDays: number;
  /** How many runs a second a bulk job acts on at most. */
  bulkRunsPerSecond: number;
  /** OAH_WORKSPACE_WEIGHTS and OAH_WORKSPACE_MAX_CONCURRENT: how the queue shares workers between workspaces. */
  fairShare: FairShare;
  shell: ShellMode;
  /** The sandbox of commands (OAH_SHELL on, and OAH_HOOKS commands). */
  sandbox: {
    /** The unprivileged user commands run as (a name or a uid). */
    user: string;
    network: StepNetwork;
    limits: StepLimits;
  };
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** OAH_API_TOKEN (named `admin`) and OAH_API_TOKENS together: names and tokens each used once. */
function namedTokens(adminToken: string | undefined, named: NamedToken[]): NamedToken[] {
  const all = [
    ...(adminToken ? [{ name: ADMIN_TOKEN_NAME, token: adminToken, role: "admin" as const }] : []),
    ...named,
  ];
  const names = new Set(all.map((t) => t.name));
  if (names.size < all.length) {
    throw new ConfigError(
      `OAH_API_TOKENS names a token twice${adminToken ? ` (or names one "${ADMIN_TOKEN_NAME}", OAH_API_TOKEN's name)` : ""}`,
    );
  }
  if (new Set(all.map((t) => t.token)).size < all.length)
    throw new ConfigError("OAH_API_TOKENS (with OAH_API_TOKEN) gives one token twice: each must be its own");
  return all;
}

/** Reads the configuration from the environment; a bad value is a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): OahConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => k.startsWith("OAH_") && v !== ""),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  if (e.OAH_REDIS_URL && e.OAH_REDIS_CLUSTER_NODES) {
    throw new ConfigError("OAH_REDIS_URL and OAH_REDIS_CLUSTER_NODES name two Redis: set one");
  }
  if (e.OAH_WORKERS_MIN > e.OAH_WORKERS_MAX) {
    throw new ConfigError(
      `OAH_WORKERS_MIN (${e.OAH_WORKERS_MIN}) is above OAH_WORKERS_MAX (${e.OAH_WORKERS_MAX})`,
    );
  }
  if (e.OAH_RUN_HEARTBEAT_INTERVAL_MS >= e.OAH_SESSION_LOCK_TTL_MS) {
    throw new ConfigError("OAH_RUN_HEARTBEAT_INTERVAL_MS must be shorter than OAH_SESSION_LOCK_TTL_MS");
  }
  // A run appears in its host's lease with the host's next heartbeat: it must not look stale before.
  const staleAfter = e.OAH_STALE_RUN_AFTER_MS ?? 2 * e.OAH_SESSION_LOCK_TTL_MS;
  if (staleAfter <= 2 * e.OAH_RUN_HEARTBEAT_INTERVAL_MS) {
    throw new ConfigError(
      `OAH_STALE_RUN_AFTER_MS (${staleAfter}) must be longer than two heartbeat intervals ` +
        `(OAH_RUN_HEARTBEAT_INTERVAL_MS ${e.OAH_RUN_HEARTBEAT_INTERVAL_MS})`,
    );
  }
  // A session claimed ahead is not renewed by the heartbeat: its lock must outlast the hold.
  const claimAheadHoldMs = claimAheadPolicy(e.OAH_CLAIM_AHEAD_RUN_MS).holdMs;
  if (claimAheadHoldMs >= e.OAH_SESSION_LOCK_TTL_MS) {
    throw new ConfigError(
      `OAH_CLAIM_AHEAD_RUN_MS (${e.OAH_CLAIM_AHEAD_RUN_MS}) holds a claim ${claimAheadHoldMs} ms, ` +
        `which must be shorter than OAH_SESSION_LOCK_TTL_MS (${e.OAH_SESSION_LOCK_TTL_MS})`,
    );
  }
  const dataDir = resolve(cwd, e.OAH_DATA_DIR ?? ".");
  return {
    hostId: e.OAH_HOST_ID,
    exitWhenDrained: e.OAH_EXIT_WHEN_DRAINED === "1" || e.OAH_EXIT_WHEN_DRAINED === "true",
    host: e.OAH_HOST,
    port: e.OAH_PORT,
    webPort: e.OAH_WEB_PORT,
    databaseUrl: e.OAH_DATABASE_URL,
    dataDir,
    redisUrl: e.OAH_REDIS_URL,
    redisClusterNodes: e.OAH_REDIS_CLUSTER_NODES,
    redisPrefix: e.OAH_REDIS_PREFIX,
    apiTokens: namedTokens(e.OAH_API_TOKEN, e.OAH_API_TOKENS ?? []),
    sessionLockTtlMs: e.OAH_SESSION_LOCK_TTL_MS,
    heartbeatIntervalMs: e.OAH_RUN_HEARTBEAT_INTERVAL_MS,
    staleRunAfterMs: staleAfter,
    recoveryScanIntervalMs: e.OAH_RECOVERY_SCAN_INTERVAL_MS,
    recoveryStrategy:
      e.OAH_STALE_RUN_RECOVERY_STRATEGY ??
      (e.OAH_REDIS_URL || e.OAH_REDIS_CLUSTER_NODES ? "requeue_running" : "fail"),
    recoveryMaxAttempts: e.OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS,
    runTimeoutMs: e.OAH_RUN_TIMEOUT_MS,
    toolTimeoutMs: e.OAH_TOOL_TIMEOUT_MS,
    modelTimeoutMs: e.OAH_MODEL_TIMEOUT_MS,
    hookTimeoutMs: e.OAH_HOOK_TIMEOUT_MS,
    model: { baseUrl: e.OAH_MODEL_BASE_URL, name: e.OAH_MODEL_NAME, apiKey: e.OAH_MODEL_API_KEY },
    hooks: e.OAH_HOOKS ?? [],
    drainTimeoutMs: e.OAH_DRAIN_TIMEOUT_MS,
    workersMin: e.OAH_WORKERS_MIN,
    workersMax: e.OAH_WORKERS_MAX,
    workspaceRoot: resolve(cwd, e.OAH_WORKSPACE_ROOT ?? join(dataDir, ".openharness", "workspaces")),
    apiUrl: e.OAH_API_URL ?? `http://127.0.0.1:${e.OAH_PORT}`,
    pool: {
      readySessionsPerCapacityUnit: e.OAH_POOL_READY_SESSIONS_PER_CAPACITY_UNIT,
      reservedSubagentCapacity: e.OAH_POOL_RESERVED_SUBAGENT_CAPACITY,
      busyRatioThreshold: e.OAH_POOL_BUSY_RATIO_THRESHOLD,
      ageThresholdMs: e.OAH_POOL_AGE_THRESHOLD_MS,
      scaleIntervalMs: e.OAH_POOL_SCALE_INTERVAL_MS,
      upCooldownMs: e.OAH_POOL_SCALE_UP_COOLDOWN_MS,
      downCooldownMs: e.OAH_POOL_SCALE_DOWN_COOLDOWN_MS,
      upSampleWindow: e.OAH_POOL_SCALE_UP_SAMPLE_WINDOW,
      downSampleWindow: e.OAH_POOL_SCALE_DOWN_SAMPLE_WINDOW,
    },
    sandboxPort: e.OAH_SANDBOX_PORT,
    maxBodyBytes: e.OAH_MAX_BODY_BYTES,
    streamKeepAliveMs: e.OAH_STREAM_KEEPALIVE_MS,
    logLevel: e.OAH_LOG_LEVEL,
    claimAheadRunMs: e.OAH_CLAIM_AHEAD_RUN_MS,
    waitMode: e.OAH_WAIT_MODE,
    auditRetentionDays: e.OAH_AUDIT_RETENTION_DAYS,
    bulkRunsPerSecond: e.OAH_BULK_RUNS_PER_SECOND,
    fairShare: { weights: e.OAH_WORKSPACE_WEIGHTS ?? {}, caps: e.OAH_WORKSPACE_MAX_CONCURRENT ?? {} },
    shell: e.OAH_SHELL,
    sandbox: {
      user: e.OAH_SANDBOX_USER,
      network: e.OAH_STEP_NETWORK,
      limits: {
        maxProcs: e.OAH_STEP_MAX_PROCS,
        maxFileBytes: e.OAH_STEP_MAX_FILE_BYTES,
        cpuSeconds: e.OAH_STEP_CPU_SECONDS,
        memoryBytes: e.OAH_STEP_MEMORY_BYTES,
        maxOutputBytes: e.OAH_STEP_MAX_OUTPUT_BYTES,
      },
    },
  };
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || host.startsWith("127.");

/** A URL as it may be logged: its password masked. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** Whether the configuration names a Redis (one server or a cluster): the queue, locks and coordination live there. */
export const usesRedis = (config: Pick<OahConfig, "redisUrl" | "redisClusterNodes">): boolean =>
  config.redisUrl !== undefined || config.redisClusterNodes !== undefined;

/** What may be logged of the configuration: no token, no passwords in URLs. */
export function describeConfig(config: OahConfig): Record<string, unknown> {
  return {
    ...config,
    apiTokens: config.apiTokens.map(({ name, role }) => ({ name, role })),
    model: { ...config.model, apiKey: config.model.apiKey ? "(set)" : undefined },
    hooks: config.hooks.map((h) => ({ ...h, url: h.url && redactUrl(h.url) })),
    databaseUrl: config.databaseUrl && redactUrl(config.databaseUrl),
    redisUrl: config.redisUrl && redactUrl(config.redisUrl),
  };
}
