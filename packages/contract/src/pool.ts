import type { PoolPressures, QueuePressure, RebalanceReason } from "@oah/core";

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

/** One sizing decision of a host's pool (SPEC §8). */
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

/** The health snapshot of one host's pool (SPEC §8). */
export interface PoolSnapshot {
  hostId: string;
  processKind: ProcessKind;
  at: number;
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

export interface PoolOverview {
  hosts: PoolSnapshot[];
  /** Newest first, across hosts. */
  recentDecisions: (PoolDecision & { hostId: string })[];
  history: { hostId: string; samples: PoolSample[] }[];
}
