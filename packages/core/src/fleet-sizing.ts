/**
 * Fleet sizing (the controller's policy, docs/spec.md §8): how many sandboxes the fleet wants,
 * from the global pressure, with the pool's hysteresis and the blockers of a scale-down.
 * Pure: the controller owns the clock, the registry and the scale target.
 */

import type { HostState } from "./host-state";
import {
  DEFAULT_POOL_SIZING,
  type HysteresisConfig,
  type PoolPressures,
  type RebalanceState,
  rebalance,
  suggestPoolSize,
  type WeighedPressure,
} from "./pool-sizing";

/** Where the controller scales the sandboxes (OAH_CONTROLLER_TARGET, docs/spec.md §8). */
export const CONTROLLER_TARGETS = ["process", "kubernetes", "none"] as const;
export type ControllerTarget = (typeof CONTROLLER_TARGETS)[number];

/** What the controller knows of one sandbox host. */
export interface FleetHost {
  hostId: string;
  state: HostState;
  /** Its lease is renewed on time. */
  healthy: boolean;
  busySlots: number;
}

export interface FleetSignals extends WeighedPressure {
  /** Workers of the whole fleet, from the registry (healthy leases only). */
  activeWorkers: number;
  busyWorkers: number;
  hosts: readonly FleetHost[];
}

export interface FleetSizingConfig {
  minReplicas: number;
  maxReplicas: number;
  slotsPerSandbox: number;
}

export const FLEET_DECISION_REASONS = [
  "startup",
  "scale_up",
  "scale_down",
  "cooldown_hold",
  "blocked",
  "steady",
] as const;
export type FleetDecisionReason = (typeof FLEET_DECISION_REASONS)[number];

/** Why a scale-down waits: a host is draining, a host is late, or the busy slots need the sandboxes. */
export const SCALE_DOWN_BLOCKERS = ["host_draining", "host_unhealthy", "busy_slots"] as const;
export type ScaleDownBlocker = (typeof SCALE_DOWN_BLOCKERS)[number];

export interface FleetDecision {
  at: number;
  reason: FleetDecisionReason;
  /** Set when the reason is `blocked`. */
  blockedBy: ScaleDownBlocker | null;
  previousDesired: number | null;
  desiredReplicas: number;
  /** What the pressure asks for before the hysteresis and the blockers. */
  suggestedReplicas: number;
  actualReplicas: number;
  figures: {
    readySessionCount: number;
    subagentReadySessionCount: number;
    oldestSchedulableReadyAgeMs: number;
    activeWorkers: number;
    busyWorkers: number;
    busySlots: number;
    pressures: PoolPressures;
  };
}

export interface FleetStep {
  state: RebalanceState;
  decision: FleetDecision;
}

const clamp = (value: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, value));

/**
 * The sandboxes the global pressure asks for: the workers the pool's policy wants for the
 * whole fleet (the same pressures as one host's pool, docs/spec.md §8), in sandboxes of
 * `slotsPerSandbox`, within the replica bounds.
 */
export function suggestFleetSize(
  signals: FleetSignals,
  config: FleetSizingConfig,
): { replicas: number; pressures: PoolPressures } {
  const fleet = suggestPoolSize(
    {
      ...signals,
      idleWorkers: Math.max(0, signals.activeWorkers - signals.busyWorkers),
      global: {
        globalActiveWorkers: signals.activeWorkers,
        globalBusyWorkers: signals.busyWorkers,
        remoteActiveWorkers: 0,
        remoteBusyWorkers: 0,
      },
    },
    { ...DEFAULT_POOL_SIZING, min: 0, max: Number.MAX_SAFE_INTEGER },
  );
  const replicas = Math.ceil(fleet.globalSuggested / Math.max(1, config.slotsPerSandbox));
  return { replicas: clamp(replicas, config.minReplicas, config.maxReplicas), pressures: fleet.pressures };
}

/** What keeps the fleet from shrinking to `desired` sandboxes now, if anything. */
export function scaleDownBlocker(
  hosts: readonly FleetHost[],
  desired: number,
  slotsPerSandbox: number,
): ScaleDownBlocker | null {
  if (hosts.some((h) => h.state === "draining")) return "host_draining";
  if (hosts.some((h) => !h.healthy)) return "host_unhealthy";
  const busy = hosts.reduce((sum, h) => sum + h.busySlots, 0);
  if (busy > desired * slotsPerSandbox) return "busy_slots";
  return null;
}

/**
 * One decision of the controller: the pool's hysteresis (sample windows and cooldowns) over
 * the suggested replicas; a scale-down it allows still waits while a blocker holds, its
 * streak kept so that it goes ahead as soon as the blocker is gone.
 */
export function decideFleetSize(
  state: RebalanceState,
  signals: FleetSignals,
  now: number,
  config: FleetSizingConfig,
  hysteresis: HysteresisConfig,
): FleetStep {
  const suggested = suggestFleetSize(signals, config);
  const step = rebalance(state, suggested.replicas, now, hysteresis);
  const busySlots = signals.hosts.reduce((sum, h) => sum + h.busySlots, 0);
  const decision = (reason: FleetDecisionReason, desired: number, blockedBy: ScaleDownBlocker | null) => ({
    at: now,
    reason,
    blockedBy,
    previousDesired: state.desired,
    desiredReplicas: desired,
    suggestedReplicas: suggested.replicas,
    actualReplicas: signals.hosts.filter((h) => h.state !== "drained").length,
    figures: {
      readySessionCount: signals.readySessionCount,
      subagentReadySessionCount: signals.subagentReadySessionCount,
      oldestSchedulableReadyAgeMs: signals.oldestSchedulableReadyAgeMs,
      activeWorkers: signals.activeWorkers,
      busyWorkers: signals.busyWorkers,
      busySlots,
      pressures: suggested.pressures,
    },
  });
  if (step.reason === "scale_down") {
    const blocker = scaleDownBlocker(signals.hosts, step.desired, config.slotsPerSandbox);
    if (blocker) {
      return {
        state: { ...state, upStreak: 0, downStreak: state.downStreak + 1 },
        decision: decision("blocked", state.desired ?? step.desired, blocker),
      };
    }
  }
  // rebalance() never answers `shutdown`: only shutdownRebalance() does, and a fleet has none.
  const reason = step.reason as Exclude<typeof step.reason, "shutdown">;
  return { state: step.state, decision: decision(reason, step.desired, null) };
}

/**
 * Two fleet decisions are the same decision when they decide the same, whatever the figures
 * they weighed: the fleet's figures move on every tick under load, and a log of distinct
 * figures would keep only the last seconds. The first of a run of same decisions is kept.
 */
export function sameFleetDecision(a: FleetDecision, b: FleetDecision): boolean {
  return (
    a.reason === b.reason &&
    a.blockedBy === b.blockedBy &&
    a.previousDesired === b.previousDesired &&
    a.desiredReplicas === b.desiredReplicas &&
    a.suggestedReplicas === b.suggestedReplicas &&
    a.actualReplicas === b.actualReplicas
  );
}
