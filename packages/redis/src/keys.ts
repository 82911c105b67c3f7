import type { RunPriority } from "@oah/core";

/**
 * Key names. Every key carries the same hash tag, `{prefix}`, so that the
 * scripts, which touch a session's keys and the ready set together, run on a
 * single Redis Cluster slot.
 */
export function redisKeys(prefix: string) {
  const base = `{${prefix}}:`;
  return {
    /** Prefix of the per-session keys the scripts build: `queue:<session>`, `lock:<session>`. */
    base,
    readySubagent: `${base}ready:subagent`,
    readyNormal: `${base}ready:normal`,
    /** A workspace's sessions of a ready lane (lua/includes/workspace-keys.lua builds them). */
    workspaceLane: (workspaceId: string, priority: RunPriority) => `${base}wready:${workspaceId}:${priority}`,
    /** sessionId → the workspace whose lanes the session is in. */
    sessionWorkspace: `${base}session-ws`,
    /**
     * The claimable workspaces by pass, and virtual time (the pass of the workspace last
     * served, before its stride) as the score of the member ""; the other workspaces
     * waiting, by when they may be claimable.
     */
    workspaces: `${base}workspaces`,
    workspacesAsleep: `${base}workspaces-asleep`,
    /** The passes kept by workspaces that left the claimable set ahead of virtual time. */
    passes: `${base}passes`,
    /** A fair-share configuration, by its digest (lua/includes/fair-share.lua). */
    fairShare: (digest: string) => `${base}fair-share:${digest}`,
    /** The sessions whose lock a capped workspace holds, by the lock's expiry. */
    heldLocks: (workspaceId: string) => `${base}held:${workspaceId}`,
    /** runId → entry JSON of every queued run. */
    entries: `${base}entries`,
    /** Present while Redis holds the queue's state; its absence means the state was lost. */
    marker: `${base}marker`,
    /** Fencing token counter. */
    fence: `${base}fence`,
    /** Pub/sub channel announcing each session that became ready, to wake idle workers. */
    wakeChannel: `${base}wake`,
    lock: (sessionId: string) => `${base}lock:${sessionId}`,
    /** Set, as long as the lock lasts, when a locked session's blocker ended: its release makes it ready. */
    readyOnRelease: (sessionId: string) => `${base}ready-on-release:${sessionId}`,
    queue: (sessionId: string) => `${base}queue:${sessionId}`,
    /** Pub/sub channel of run signals (cancel requests, tool results). */
    signalChannel: `${base}signals`,
    /** Pub/sub channel of event notes: events written (by session), and live events (model.delta). */
    eventChannel: `${base}events`,
    /** Worker leases, one record per host (its workers' leases) with a TTL, and the hosts by expiry. */
    workerLeases: (hostId: string) => `${base}worker-leases:${hostId}`,
    workerLeaseHosts: `${base}worker-lease-hosts`,
    /** Pool snapshots of live hosts, and their index by expiry. */
    poolHost: (hostId: string) => `${base}pool:${hostId}`,
    poolHistory: (hostId: string) => `${base}pool-history:${hostId}`,
    poolHosts: `${base}pool-hosts`,
    /** A worker host's lease: the runs it executes, lapsing a lock TTL after its last renewal. */
    hostLease: (hostId: string) => `${base}host:${hostId}`,
    /** Held by the one host running a maintenance task (stale-run scan, queue refill, reconcile). */
    maintenanceLock: (task: string) => `${base}maintenance-lock:${task}`,
    /** The controller's leader lease ("<token> <candidate>"), and the counter of its fencing tokens. */
    controllerLeader: `${base}controller:leader`,
    controllerFence: `${base}controller:fence`,
    /** The leading controller's report (field `report`), written only under its lease. */
    controllerState: `${base}controller:state`,
    /** hostId → the order (cordon, drain) given to that worker host. */
    hostOrders: `${base}host-orders`,
    /** A model's capacity under its limits (lua/model-limit-1.lua). */
    modelLimit: (model: string) => `${base}model-limit:${model}`,
    /** rolloutId → rollout JSON, and the ids of those not finished, in the order asked. */
    rollouts: `${base}rollouts`,
    rolloutQueue: `${base}rollout-queue`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
