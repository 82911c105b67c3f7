/**
 * Who may do what through the API (docs/spec.md §13): each token has a role, each procedure
 * asks for one ability. `submitter`: clients that submit runs, follow and cancel them and
 * answer their tools; `viewer`: reads everything the console shows; `operator`: a viewer who
 * also requeues, cancels, runs bulk jobs and repairs, and orders hosts; `admin`: everything.
 */
export const ROLES = ["submitter", "viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const ABILITIES = [
  /** Submit runs and give the results of their client tools. */
  "submit",
  /** Read runs, their events, steps and streams. */
  "readRuns",
  "cancel",
  /** Run a run again from one of its steps: a new run that goes on from the checkpoint before it (a fork). */
  "fork",
  /** Read the console's views: the store's lists and overview, the pool, dead letters, the audit log… */
  "view",
  /** Requeue, bulk jobs, repairs, orders to hosts. */
  "operate",
  /** What changes the fleet itself: rolling restarts. */
  "administer",
] as const;
export type Ability = (typeof ABILITIES)[number];

const ROLE_ABILITIES: Record<Role, readonly Ability[]> = {
  submitter: ["submit", "readRuns", "cancel", "fork"],
  viewer: ["readRuns", "view"],
  operator: ["readRuns", "cancel", "fork", "view", "operate"],
  admin: ABILITIES,
};

export function may(role: Role, ability: Ability): boolean {
  return ROLE_ABILITIES[role].includes(ability);
}

/** Who makes a call: the name of its token and its role. */
export interface Actor {
  name: string;
  role: Role;
}

/**
 * The caller of an API that has no token (the local default, loopback only): whoever can
 * reach it owns the machine.
 */
export const LOCAL_ACTOR: Actor = { name: "local", role: "admin" };

/** The name OAH_API_TOKEN goes by among named tokens: the single admin token. */
export const ADMIN_TOKEN_NAME = "admin";

/** A token of OAH_API_TOKENS (OAH_API_TOKEN is the one named `admin`): what a caller presents. */
export interface NamedToken {
  name: string;
  token: string;
  role: Role;
}

/**
 * The operator actions the audit log records (docs/spec.md §13): each is the `audit` of the
 * procedure that does it, recorded with who, when, the target, the parameters and the outcome.
 */
export const AUDIT_ACTIONS = [
  "run.requeue",
  "run.requeue_many",
  "run.cancel",
  "run.interrupt",
  "run.tool_result",
  "run.fork",
  "run.message",
  "bulk.dry_run",
  "bulk.start",
  "bulk.abort",
  "session.cancel_queued",
  "jam.repair",
  "host.cordon",
  "host.uncordon",
  "host.drain",
  "fleet.rollout",
  "console.sign_in",
  "console.sign_out",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The audited calls a run's own client makes (its cancel, a tool's result): traffic like its
 * submission, small entries, and as many as the runs need. Every other audited action is
 * limited per minute for each token (OAH_AUDIT_ACTIONS_PER_MINUTE, docs/spec.md §13).
 */
const RUN_CLIENT_ACTIONS: ReadonlySet<AuditAction> = new Set([
  "run.cancel",
  "run.interrupt",
  "run.tool_result",
  "run.fork",
  "run.message",
]);

export const auditRateLimited = (action: AuditAction): boolean => !RUN_CLIENT_ACTIONS.has(action);
