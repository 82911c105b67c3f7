import { join, resolve } from "node:path";
import { ADMIN_TOKEN_NAME, claimAheadPolicy, type NamedToken, type RecoveryStrategy } from "@oah/core";
import { type Declared, readDeclared } from "./declare";
import { OAH_VARIABLES } from "./variables";

type DeclaredConfig = Declared<typeof OAH_VARIABLES>;

/**
 * The configuration of an oah process: what the variables declare (`OAH_VARIABLES`, in the
 * same shape), with what is derived from several of them in place of the raw values.
 */
export type OahConfig = Omit<
  DeclaredConfig,
  "tokens" | "dataDir" | "workspaceRoot" | "apiUrl" | "staleRunAfterMs" | "recoveryStrategy"
> & {
  /** OAH_DATA_DIR, absolute. */
  dataDir: string;
  workspaceRoot: string;
  apiUrl: string;
  staleRunAfterMs: number;
  recoveryStrategy: RecoveryStrategy;
  /**
   * Every token the API accepts, with its name and role: OAH_API_TOKENS, and OAH_API_TOKEN as
   * the admin token named `admin`. None: the API answers only on loopback, to anyone.
   */
  apiTokens: NamedToken[];
};

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
  const read = readDeclared(OAH_VARIABLES, env);
  if (!read.ok) throw new ConfigError(`invalid configuration:\n${read.problems.join("\n")}`);
  const { tokens, ...e } = read.values;
  if (e.redisUrl && e.redisClusterNodes) {
    throw new ConfigError("OAH_REDIS_URL and OAH_REDIS_CLUSTER_NODES name two Redis: set one");
  }
  if (e.workersMin > e.workersMax) {
    throw new ConfigError(`OAH_WORKERS_MIN (${e.workersMin}) is above OAH_WORKERS_MAX (${e.workersMax})`);
  }
  if (e.heartbeatIntervalMs >= e.sessionLockTtlMs) {
    throw new ConfigError("OAH_RUN_HEARTBEAT_INTERVAL_MS must be shorter than OAH_SESSION_LOCK_TTL_MS");
  }
  // A run appears in its host's lease with the host's next heartbeat: it must not look stale before.
  const staleAfter = e.staleRunAfterMs ?? 2 * e.sessionLockTtlMs;
  if (staleAfter <= 2 * e.heartbeatIntervalMs) {
    throw new ConfigError(
      `OAH_STALE_RUN_AFTER_MS (${staleAfter}) must be longer than two heartbeat intervals ` +
        `(OAH_RUN_HEARTBEAT_INTERVAL_MS ${e.heartbeatIntervalMs})`,
    );
  }
  // A session claimed ahead is not renewed by the heartbeat: its lock must outlast the hold.
  const claimAheadHoldMs = claimAheadPolicy(e.claimAheadRunMs).holdMs;
  if (claimAheadHoldMs >= e.sessionLockTtlMs) {
    throw new ConfigError(
      `OAH_CLAIM_AHEAD_RUN_MS (${e.claimAheadRunMs}) holds a claim ${claimAheadHoldMs} ms, ` +
        `which must be shorter than OAH_SESSION_LOCK_TTL_MS (${e.sessionLockTtlMs})`,
    );
  }
  const dataDir = resolve(cwd, e.dataDir ?? ".");
  return {
    ...e,
    dataDir,
    workspaceRoot: resolve(cwd, e.workspaceRoot ?? join(dataDir, ".openharness", "workspaces")),
    apiUrl: e.apiUrl ?? `http://127.0.0.1:${e.port}`,
    staleRunAfterMs: staleAfter,
    recoveryStrategy: e.recoveryStrategy ?? (e.redisUrl || e.redisClusterNodes ? "requeue_running" : "fail"),
    apiTokens: namedTokens(tokens.admin, tokens.named ?? []),
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
