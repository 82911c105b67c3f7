import type {
  CommandsAvailability,
  ControllerTarget,
  FleetDecision,
  HostState,
  PoolPressures,
  QueuePressure,
  RebalanceReason,
} from "@oah/core";
import { z } from "zod";
import { hostIdSchema, rolloutIdSchema } from "./ids";

export type WorkerState = "starting" | "idle" | "busy" | "stopping";
export type ProcessKind = "embedded" | "standalone";

/** A worker's entry in the registry; it lapses at `expiresAt` unless renewed. */
export interface WorkerLease {
  workerId: string;
  hostId: string;
  processKind: ProcessKind;
  state: WorkerState;
  sessionId: string | null;
  runId: string | null;
  lastSeenAt: number;
  expiresAt: number;
  /** How often the lease is renewed; a lease not seen for two of these is late. */
  intervalMs: number;
  /** The state its order put the worker's host in (docs/spec.md §8). */
  hostState: HostState;
  /** The host process's figures, the same on each of its leases. */
  cpuPercent: number;
  rssMb: number;
}

export interface SlotSnapshot {
  id: string;
  state: WorkerState;
  sessionId: string | null;
  runId: string | null;
}

/** One sizing decision of a host's pool (docs/spec.md §8). */
export interface PoolDecision {
  at: number;
  reason: RebalanceReason;
  previousDesired: number | null;
  desired: number;
  localSuggested: number;
  globalSuggested: number;
  pressures: PoolPressures;
  readySessionCount: number;
  busyWorkers: number;
  activeWorkers: number;
  remoteActiveWorkers: number;
}

/** One point of a host's sampled history, for charts. */
export interface PoolSample {
  at: number;
  readySessionCount: number;
  busyWorkers: number;
  idleWorkers: number;
  desired: number;
  queueWaitP50Ms: number | null;
  queueWaitP95Ms: number | null;
}

/** The health snapshot of one host's pool (docs/spec.md §8). */
export interface PoolSnapshot {
  hostId: string;
  processKind: ProcessKind;
  /** Active, or under an order: cordoned, draining, drained (docs/spec.md §8). */
  state: HostState;
  /** Whether the host runs commands of runs, and if not why (OAH_SHELL=off, or no step jail here). */
  commands: CommandsAvailability;
  at: number;
  /** How often the snapshot is renewed; one not renewed for two of these is late. */
  intervalMs: number;
  min: number;
  max: number;
  pressure: QueuePressure;
  busyWorkers: number;
  idleWorkers: number;
  activeWorkers: number;
  slotCapacity: number;
  busySlots: number;
  idleSlots: number;
  globalActiveWorkers: number | null;
  globalBusyWorkers: number | null;
  remoteActiveWorkers: number | null;
  remoteBusyWorkers: number | null;
  pressures: PoolPressures;
  suggested: number;
  globalSuggested: number;
  desired: number;
  availableIdleCapacity: number;
  readySessionsPerActiveWorker: number;
  subagentReserveTarget: number;
  subagentReserveDeficit: number;
  queueWaitP50Ms: number | null;
  queueWaitP95Ms: number | null;
  lastRebalanceAt: number | null;
  lastRebalanceReason: RebalanceReason | null;
  upStreak: number;
  downStreak: number;
  upCooldownRemainingMs: number;
  downCooldownRemainingMs: number;
  slots: SlotSnapshot[];
}

/** What a host publishes of its pool: the snapshot and its recent distinct decisions. */
export interface PoolReport {
  snapshot: PoolSnapshot;
  recentDecisions: PoolDecision[];
}

/** One point of the controller's sampled history. */
export interface FleetSample {
  at: number;
  desiredReplicas: number;
  actualReplicas: number;
  readySessionCount: number;
  busySlots: number;
}

/** What the leading controller publishes (docs/spec.md §8), beside the hosts' pools. */
export interface ControllerReport {
  leaderId: string;
  at: number;
  target: ControllerTarget;
  desiredReplicas: number;
  actualReplicas: number;
  /** The last distinct decisions, oldest first. */
  decisions: FleetDecision[];
  /** An hour of samples, oldest first. */
  history: FleetSample[];
}

/** One workspace's share of the fleet's work now (docs/spec.md §5, §6). */
export interface WorkspaceLoad {
  workspaceId: string;
  /** Sessions with a run waiting for a slot. */
  readySessions: number;
  /** Runs holding a slot: running, or waiting for a tool result on hold. */
  executingRuns: number;
  /** Runs parked in waiting_tool: they hold no slot. */
  parkedRuns: number;
}

/** What the fleet is working on: parked runs, and each busy workspace's load. */
export interface FleetWorkload {
  /** Runs parked in waiting_tool across the fleet (docs/spec.md §6). */
  parkedRuns: number;
  /** The workspaces with ready sessions, executing or parked runs, by id. */
  workspaces: WorkspaceLoad[];
}

export interface PoolOverview extends FleetWorkload {
  /** The leading controller's report; null when no controller runs. */
  controller: ControllerReport | null;
  hosts: PoolSnapshot[];
  /** Newest first, across hosts. */
  recentDecisions: (PoolDecision & { hostId: string })[];
  history: { hostId: string; samples: PoolSample[] }[];
}

export const hostOrderInput = z.strictObject({ hostId: hostIdSchema });
export type HostOrderInput = z.infer<typeof hostOrderInput>;

/** The answer to cordon, uncordon and drain: the state the host was told to take. */
export interface HostOrderAccepted {
  hostId: string;
  state: HostState;
}

export const rolloutInput = z.strictObject({
  /** Who the caller says asks: kept as `claimedBy`, beside the caller. */
  requestedBy: z.string().trim().min(1).max(128).optional(),
});
export type RolloutInput = z.infer<typeof rolloutInput>;

export const rolloutIdInput = z.strictObject({ rolloutId: rolloutIdSchema });

export const ROLLOUT_STATES = ["pending", "running", "done", "failed"] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

/** One sandbox of a rolling restart: the one replaced, and the one that replaced it. */
export interface RolloutStep {
  hostId: string;
  replacementId: string | null;
  state: "waiting" | "starting" | "draining" | "replaced" | "failed";
}

/** A rolling restart of the fleet (docs/spec.md §8): asked through the API, carried out by the leading controller. */
export interface Rollout {
  rolloutId: string;
  state: RolloutState;
  /** Who asked: the caller's token's name (null in a rollout asked before it was recorded). */
  requestedBy: string | null;
  /** The name the caller gave as who asks, beside it. */
  claimedBy?: string | null;
  requestedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The sandboxes to replace, fixed when the rollout starts. */
  steps: RolloutStep[];
  replaced: number;
  total: number;
  message: string | null;
}
