import { readFileSync } from "node:fs";
import {
  HOOK_EVENTS,
  HOST_ID_PATTERN,
  isVariedSecret,
  RECOVERY_STRATEGIES,
  ROLES,
  STEP_NETWORK_MODES,
  WAIT_MODES,
  WORKSPACE_ID_PATTERN,
} from "@oah/core";
import { z } from "zod";
import { section } from "./declare";

/**
 * How a host runs the commands of runs: `on`, in a step jail (refusing to start where none can be
 * made, but for oah-api with its workers); `off`, refused at submission and never executed
 * (configured OAH_HOOKS commands still run, jailed); `unsafe-host`, unconfined, as the host's
 * own user, for a developer's machine only.
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

const perMinute = z.number().int().min(1).max(1_000_000_000);

/** OAH_MODEL_LIMITS: a JSON object of model names to their limits a minute. */
const modelLimitsJson = z
  .string()
  .transform((value, ctx) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON object of model names to limits" });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().min(1),
      z
        .strictObject({ requestsPerMinute: perMinute.optional(), tokensPerMinute: perMinute.optional() })
        .transform((limit) => ({
          requestsPerMinute: limit.requestsPerMinute ?? null,
          tokensPerMinute: limit.tokensPerMinute ?? null,
        })),
    ),
  );

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

export const TOKEN_RULE =
  "must be at least 32 characters, at least 8 of them different (e.g. openssl rand -hex 32)";

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

/** OAH_REDIS_CLUSTER_NODES: `host:port`, comma-separated. */
const clusterNodes = z.string().transform((value, ctx) => {
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
});

const api = section("The API and its processes");
const web = section("The console");
const store = section("Store and Redis");
const runs = section("Runs, recovery and drain");
const pool = section("Workers and scheduling");
const models = section("Models and hooks");
const commands = section("Commands of runs and their jail");

/**
 * Every variable of oah-api and oah-sandbox, placed where it lands in the configuration
 * (`loadConfig` adds what is derived from several: see `OahConfig`). docs/operations.md's
 * table is generated from these (npm run docs:config); a test holds it to them.
 */
export const OAH_VARIABLES = {
  host: api("OAH_HOST", text, {
    default: "127.0.0.1",
    description: "address to bind; a non-loopback address requires a token (`--host` overrides)",
  }),
  port: api("OAH_PORT", int(0, 65_535), {
    default: 8787,
    description: "the API's port (`--port` overrides; `0` picks a free port)",
  }),
  tokens: {
    admin: api(
      "OAH_API_TOKEN",
      z.string().refine((token) => isVariedSecret(token), { error: `OAH_API_TOKEN ${TOKEN_RULE}` }),
      {
        description:
          "bearer token for every call but the probes; at least 32 characters, at least 8 of them different (`openssl rand -hex 32`); the admin token, named `admin`",
      },
    ),
    named: api("OAH_API_TOKENS", apiTokensJson, {
      description:
        'named tokens with roles: a JSON list of `{"name", "token", "role"}` (roles `submitter`, `viewer`, `operator`, `admin`), or `@/path/to/file.json` holding one; names and tokens each once ([security.md](security.md))',
    }),
  },
  maxBodyBytes: api("OAH_MAX_BODY_BYTES", int(1_024), {
    default: 1_048_576,
    description: "largest request body",
  }),
  streamKeepAliveMs: api("OAH_STREAM_KEEPALIVE_MS", int(100, 600_000), {
    default: 15_000,
    description: "how often an idle HTTP event stream gets a `: keep-alive` comment",
  }),
  streamCaps: {
    total: api("OAH_MAX_STREAMS", int(1), {
      default: 1_000,
      description:
        "the most event streams (SSE and tRPC subscriptions) held at once, a quarter of the 4,000 connections: the rest stays for requests and probes; the next gets 429 `too_many_streams`",
    }),
    perAddress: api("OAH_MAX_STREAMS_PER_ADDRESS", int(1), {
      default: 250,
      description:
        "the most event streams from one client address, half of its 500 connections (every local client and the console share 127.0.0.1)",
    }),
    perCaller: api("OAH_MAX_STREAMS_PER_TOKEN", int(1), {
      default: 100,
      description:
        "the most event streams of one token (by its name), so that one client cannot take its address's share; not counted without tokens",
    }),
  },
  sandboxPort: api("OAH_SANDBOX_PORT", int(0, 65_535), {
    default: 8788,
    description: "the probe port of `oah-sandbox` (`--port` overrides)",
  }),
  hostId: api(
    "OAH_HOST_ID",
    z.string().regex(HOST_ID_PATTERN, { error: "must be 1-128 characters of A-Z a-z 0-9 . _ : -" }),
    {
      shownDefault: "role, machine, pid",
      description: "this host's id in claims, leases, the pool and orders (a pod's name in Kubernetes)",
    },
  ),
  logLevel: api("OAH_LOG_LEVEL", z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]), {
    default: "info",
    description: "pino's level: `trace` … `fatal`, `silent`",
  }),
  webHost: web("OAH_WEB_HOST", text, {
    default: "127.0.0.1",
    description: "the console's address; anything but loopback requires a token",
  }),
  webPort: web("OAH_WEB_PORT", int(0, 65_535), { default: 3000, description: "the console's port" }),
  apiUrl: web("OAH_API_URL", text, {
    shownDefault: "what oah-api reports under `npm start`; else `http://127.0.0.1:$OAH_PORT`",
    description: "where the console reaches oah-api",
  }),
  dataDir: store("OAH_DATA_DIR", text, {
    shownDefault: "the current directory",
    description:
      "root of `.openharness/`: the SQLite store and a worker host's local history (`data/history.db`), the workspaces; may be private (mode 700)",
  }),
  databaseUrl: store("OAH_DATABASE_URL", text, {
    description:
      "PostgreSQL; without it the store is SQLite. Each process opens at most 20 connections, on demand: 10 for queries and transactions, 10 for the hot statements it prepares",
  }),
  redisUrl: store("OAH_REDIS_URL", text, {
    description: "Redis; with it the queue, locks, cancels, registry and pool reports live there",
  }),
  redisClusterNodes: store("OAH_REDIS_CLUSTER_NODES", clusterNodes, {
    description:
      "a Redis Cluster instead of one server: some of its nodes, `host:port` comma-separated (instead of `OAH_REDIS_URL`); every key of a prefix shares one slot",
  }),
  redisPrefix: store("OAH_REDIS_PREFIX", z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/), {
    default: "oah",
    description: "key prefix (and hash tag) of everything oah keeps in Redis",
  }),
  auditRetentionDays: store("OAH_AUDIT_RETENTION_DAYS", int(0, 36_500), {
    default: 90,
    description: "how long the audit log keeps an operator action, in days; `0` for ever",
  }),
  auditActionsPerMinute: api("OAH_AUDIT_ACTIONS_PER_MINUTE", int(1, 60_000), {
    default: 60,
    description:
      "the operator actions (and console sign-ins) one token may make a minute on one API process, at once or spread; past it 429 `too_many_actions`, unrecorded",
  }),
  bulkRunsPerSecond: store("OAH_BULK_RUNS_PER_SECOND", int(1, 100_000), {
    default: 500,
    description:
      "the most runs a second a bulk action (requeue or cancel by filter) acts on, so that workers keep their share of the store",
  }),
  runTimeoutMs: runs("OAH_RUN_TIMEOUT_MS", int(1), {
    default: 1_800_000,
    description: "a run's timeout unless it sets one",
  }),
  toolTimeoutMs: runs("OAH_TOOL_TIMEOUT_MS", int(1), {
    default: 120_000,
    description: "a shell step's or tool call's timeout unless it sets one",
  }),
  sessionLockTtlMs: runs("OAH_SESSION_LOCK_TTL_MS", int(1_000), {
    default: 30_000,
    description: "a session lock's lifetime without renewal",
  }),
  heartbeatIntervalMs: runs("OAH_RUN_HEARTBEAT_INTERVAL_MS", int(100), {
    default: 5_000,
    description: "heartbeat and lock renewal period (below the lock TTL)",
  }),
  staleRunAfterMs: runs("OAH_STALE_RUN_AFTER_MS", int(1_000), {
    shownDefault: "2 × `OAH_SESSION_LOCK_TTL_MS`",
    description:
      "age of the last heartbeat after which an active run is stale (more than two heartbeat intervals)",
  }),
  recoveryStrategy: runs("OAH_STALE_RUN_RECOVERY_STRATEGY", z.enum(RECOVERY_STRATEGIES), {
    shownDefault: "`fail`; `requeue_running` with Redis",
    description: `what recovery does with a stale run: ${RECOVERY_STRATEGIES.map((s) => `\`${s}\``).join(", ")} ([spec.md §7](spec.md#7-recovery))`,
  }),
  recoveryMaxAttempts: runs("OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS", int(0, 1_000), {
    default: 3,
    description: "automatic requeues before a run is quarantined",
  }),
  recoveryScanIntervalMs: runs("OAH_RECOVERY_SCAN_INTERVAL_MS", int(100), {
    default: 15_000,
    description: "period of the stale-run scan and queue reconcile",
  }),
  drainTimeoutMs: runs("OAH_DRAIN_TIMEOUT_MS", int(0), {
    default: 30_000,
    description: "how long a shutdown or a drain lets runs in hand finish",
  }),
  waitMode: runs("OAH_WAIT_MODE", z.enum(WAIT_MODES), {
    default: "park",
    description:
      "how a run waits for a client's tool result: `park` frees its slot and lets any host resume it; `hold` keeps its execution, slot and heartbeat",
  }),
  checkpoints: runs("OAH_CHECKPOINTS", z.enum(["on", "off"]), {
    default: "on",
    description:
      "`off`: executors write no checkpoint after their steps and read none, so that a later attempt or a fork starts from the first step ([spec.md §7](spec.md#7-recovery)); for measuring what checkpoints cost",
  }),
  interruptGraceMs: runs("OAH_INTERRUPT_GRACE_MS", int(0, 86_400_000), {
    default: 10_000,
    description:
      "how long a run a later submission interrupts or replaces may go on to its next step boundary before it is cancelled as a cancel is, its step cut short ([spec.md §5](spec.md#5-queue-and-locks))",
  }),
  exitWhenDrained: runs(
    "OAH_EXIT_WHEN_DRAINED",
    z.enum(["0", "1", "false", "true"]).transform((v) => v === "1" || v === "true"),
    {
      default: false,
      shownDefault: "`0`",
      description:
        "`1`: a worker host exits once drained under a drain order (the controller's own sandboxes)",
    },
  ),
  workersMin: pool("OAH_WORKERS_MIN", int(0, 1_024), {
    default: 2,
    description: "the fewest workers of each host's elastic pool",
  }),
  workersMax: pool("OAH_WORKERS_MAX", int(1, 1_024), {
    default: 16,
    description: "the most workers of each host's elastic pool (`oah-sandbox --slots N` sets it)",
  }),
  pool: {
    readySessionsPerCapacityUnit: pool(
      "OAH_POOL_READY_SESSIONS_PER_CAPACITY_UNIT",
      z.coerce.number().positive(),
      {
        default: 1,
        description: "U of [spec.md §8](spec.md#8-worker-pool-sizing)",
      },
    ),
    reservedSubagentCapacity: pool("OAH_POOL_RESERVED_SUBAGENT_CAPACITY", int(0, 1_024), {
      default: 1,
      description: "workers kept above the busy ones while subagent sessions wait",
    }),
    busyRatioThreshold: pool("OAH_POOL_BUSY_RATIO_THRESHOLD", z.coerce.number().min(0).max(1), {
      default: 0.75,
      description: "age pressure: the busy share above which an old wait adds a worker",
    }),
    ageThresholdMs: pool("OAH_POOL_AGE_THRESHOLD_MS", int(0), {
      default: 2_000,
      description: "age pressure: the oldest wait that adds a worker",
    }),
    scaleIntervalMs: pool("OAH_POOL_SCALE_INTERVAL_MS", int(50), {
      default: 1_000,
      description: "sizing period (also the worker leases' renewal period)",
    }),
    upCooldownMs: pool("OAH_POOL_SCALE_UP_COOLDOWN_MS", int(0), {
      default: 1_000,
      description: "time since the last change before growing again",
    }),
    downCooldownMs: pool("OAH_POOL_SCALE_DOWN_COOLDOWN_MS", int(0), {
      default: 15_000,
      description: "time since the last change before shrinking again",
    }),
    upSampleWindow: pool("OAH_POOL_SCALE_UP_SAMPLE_WINDOW", int(1, 1_000), {
      default: 2,
      description: "agreeing samples needed to grow",
    }),
    downSampleWindow: pool("OAH_POOL_SCALE_DOWN_SAMPLE_WINDOW", int(1, 1_000), {
      default: 3,
      description: "agreeing samples needed to shrink",
    }),
  },
  claimAheadRunMs: pool("OAH_CLAIM_AHEAD_RUN_MS", int(0, 60_000), {
    default: 5,
    description:
      "with Redis, a slot whose last 8 runs each executed in less than this claims its next session while its run starts, and holds it 5× this at most (below the lock TTL); `0` never",
  }),
  fairShare: {
    weights: pool(
      "OAH_WORKSPACE_WEIGHTS",
      workspaceNumbersJson(
        // A weight so small that its stride, 1 / weight, is no longer finite would stop its passes.
        z
          .number()
          .positive()
          .refine((weight) => Number.isFinite(1 / weight)),
        "weights above 0",
      ),
      {
        default: {},
        description:
          "the workers' shares between workspaces, a JSON object of workspace id → weight (above 0; one not named weighs 1); the same on every host",
      },
    ),
    caps: pool(
      "OAH_WORKSPACE_MAX_CONCURRENT",
      workspaceNumbersJson(z.int().min(1), "whole numbers of 1 or more"),
      {
        default: {},
        description:
          "the most sessions a workspace may hold at once on all hosts, a JSON object of workspace id → whole number ≥ 1 (none named: no cap); the same on every host",
      },
    ),
  },
  model: {
    baseUrl: models("OAH_MODEL_BASE_URL", z.url({ protocol: /^https?$/ }), {
      description: "the OpenAI-compatible endpoint of `model` steps and the agent executor",
    }),
    name: models("OAH_MODEL_NAME", text, { default: "default", description: "the model asked for" }),
    apiKey: models("OAH_MODEL_API_KEY", text, {
      description: "sent as a bearer token to the model endpoint, never logged",
    }),
  },
  modelTimeoutMs: models("OAH_MODEL_TIMEOUT_MS", int(1), { default: 120_000, description: "one model call" }),
  modelLimits: models("OAH_MODEL_LIMITS", modelLimitsJson, {
    default: {},
    shownDefault: "`{}` (none)",
    description:
      'the limits of each model asked for, shared by every host: a JSON object of model names to `{"requestsPerMinute": n, "tokensPerMinute": n}` (either may be left out); a call waits for capacity, and a 429 blocks every host for its Retry-After ([spec.md §6](spec.md#6-execution-cancel-timeouts-commands))',
  }),
  modelLimitMaxWaitMs: models("OAH_MODEL_LIMIT_MAX_WAIT_MS", int(0), {
    default: 300_000,
    description:
      "how long one model call may wait for capacity under OAH_MODEL_LIMITS (Retry-After included) before it fails with `model_rate_limited`",
  }),
  hooks: models("OAH_HOOKS", hooksJson, {
    default: [],
    description: "hooks, a JSON array (see [Models and hooks](#models-and-hooks))",
  }),
  hookTimeoutMs: models("OAH_HOOK_TIMEOUT_MS", int(1), {
    default: 10_000,
    description: "one hook, unless it sets its own",
  }),
  shell: commands("OAH_SHELL", z.enum(SHELL_MODES), {
    default: "on",
    description:
      "commands of runs (shell steps, hook steps, the agent's shell tool): `on`, in the step jail (bubblewrap); `off`, refused at submission with 400 `shell_disabled`; `unsafe-host`, unconfined on the host ([security.md](security.md#the-ways-out))",
  }),
  workspaceRoot: commands("OAH_WORKSPACE_ROOT", text, {
    shownDefault: "`$OAH_DATA_DIR/.openharness/workspaces`",
    description:
      "where commands run, a directory per workspace, made when a command first runs there and owned by the jail's user",
  }),
  jail: {
    user: commands(
      "OAH_SANDBOX_USER",
      z
        .string()
        .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$/, { error: "must be a user name or a numeric uid" }),
      {
        default: "nobody",
        description:
          "the unprivileged user commands run as, a name or a uid (not root); a host that is not root runs them as its own user",
      },
    ),
    workspaceMaxBytes: commands("OAH_WORKSPACE_MAX_BYTES", int(16_777_216), {
      shownDefault: "— (unbounded)",
      description:
        "the size of each workspace: a file system of its own, loop-mounted at its directory, so that a step cannot write more there (needs root; [security.md](security.md#what-the-step-jail-confines)); unset, a workspace may fill the disk",
    }),
    network: commands("OAH_STEP_NETWORK", z.enum(STEP_NETWORK_MODES), {
      default: "on",
      description:
        "a command's network: `on`, a network namespace of its own with egress through slirp4netns, never this host's addresses nor oah's Redis and PostgreSQL; `off`, none; `host`, the host's own, loopback included",
    }),
    limits: {
      maxProcs: commands("OAH_STEP_MAX_PROCS", int(8, 1_000_000), {
        default: 256,
        description: "processes and threads of one command's jail at once",
      }),
      maxFileBytes: commands("OAH_STEP_MAX_FILE_BYTES", int(65_536), {
        default: 1_073_741_824,
        description:
          "the largest file a command's process may write, and the size of each of its private `/tmp` and `/dev/shm` (RAM)",
      }),
      cpuSeconds: commands("OAH_STEP_CPU_SECONDS", int(1), {
        default: 600,
        description: "CPU time of each process of a command",
      }),
      memoryBytes: commands("OAH_STEP_MEMORY_BYTES", int(16_777_216), {
        default: 2_147_483_648,
        description:
          "data (heap, private writable memory) of each process of a command; and, where the host can make a cgroup per jail (root, a memory controller), the memory of the whole jail, its `/tmp` and `/dev/shm` included ([security.md](security.md#what-the-step-jail-confines))",
      }),
      maxOutputBytes: commands("OAH_STEP_MAX_OUTPUT_BYTES", int(1_048_576), {
        default: 104_857_600,
        description:
          "what a command may write in all (stdout and stderr); past it the command is stopped and its step fails (`tool_failed`); the first 64 KiB of each stream are kept",
      }),
    },
  },
};
