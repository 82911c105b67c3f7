import type { PoolSnapshot } from "@oah/contract";
import { largestPresent, sum } from "./aggregate";

/** The snapshot figures the pool section shows, of one host or of all of them. */
export interface PoolFacts {
  hosts: number;
  min: number;
  max: number;
  suggested: number;
  globalSuggested: number;
  desired: number;
  activeWorkers: number;
  busyWorkers: number;
  idleWorkers: number;
  slotCapacity: number;
  subagentReserveTarget: number;
  subagentReserveDeficit: number;
  readySessionCount: number;
  subagentReadySessionCount: number;
  lockedReadySessionCount: number;
  staleReadySessionCount: number;
  oldestSchedulableReadyAgeMs: number;
  queueWaitP50Ms: number | null;
  queueWaitP95Ms: number | null;
  pressures: PoolSnapshot["pressures"];
  lastRebalanceAt: number | null;
  lastRebalanceReason: PoolSnapshot["lastRebalanceReason"];
  /** Streaks, cooldowns and remote workers are one host's own: null for a total. */
  upStreak: number | null;
  downStreak: number | null;
  upCooldownRemainingMs: number | null;
  downCooldownRemainingMs: number | null;
  remoteActiveWorkers: number | null;
}

/** The facts of one host, or the totals of several; null without a host. */
export function poolFacts(hosts: readonly PoolSnapshot[]): PoolFacts | null {
  if (hosts.length === 0) return null;
  if (hosts.length === 1) {
    const h = hosts[0]!;
    return { hosts: 1, ...h, ...h.pressure, remoteActiveWorkers: h.remoteActiveWorkers };
  }
  // Totals: capacities add up; queue-wide figures (every host reads the same queue) are the largest seen.
  const newest = [...hosts].sort((a, b) => (b.lastRebalanceAt ?? 0) - (a.lastRebalanceAt ?? 0))[0]!;
  return {
    hosts: hosts.length,
    min: sum(hosts.map((h) => h.min)),
    max: sum(hosts.map((h) => h.max)),
    suggested: sum(hosts.map((h) => h.suggested)),
    globalSuggested: Math.max(...hosts.map((h) => h.globalSuggested)),
    desired: sum(hosts.map((h) => h.desired)),
    activeWorkers: sum(hosts.map((h) => h.activeWorkers)),
    busyWorkers: sum(hosts.map((h) => h.busyWorkers)),
    idleWorkers: sum(hosts.map((h) => h.idleWorkers)),
    slotCapacity: sum(hosts.map((h) => h.slotCapacity)),
    subagentReserveTarget: Math.max(...hosts.map((h) => h.subagentReserveTarget)),
    subagentReserveDeficit: Math.max(...hosts.map((h) => h.subagentReserveDeficit)),
    readySessionCount: Math.max(...hosts.map((h) => h.pressure.readySessionCount)),
    subagentReadySessionCount: Math.max(...hosts.map((h) => h.pressure.subagentReadySessionCount)),
    lockedReadySessionCount: Math.max(...hosts.map((h) => h.pressure.lockedReadySessionCount)),
    staleReadySessionCount: Math.max(...hosts.map((h) => h.pressure.staleReadySessionCount)),
    oldestSchedulableReadyAgeMs: Math.max(...hosts.map((h) => h.pressure.oldestSchedulableReadyAgeMs)),
    queueWaitP50Ms: largestPresent(hosts.map((h) => h.queueWaitP50Ms)),
    queueWaitP95Ms: largestPresent(hosts.map((h) => h.queueWaitP95Ms)),
    pressures: {
      queue: Math.max(...hosts.map((h) => h.pressures.queue)),
      saturation: Math.max(...hosts.map((h) => h.pressures.saturation)),
      subagentReserve: Math.max(...hosts.map((h) => h.pressures.subagentReserve)),
      age: Math.max(...hosts.map((h) => h.pressures.age)),
    },
    lastRebalanceAt: newest.lastRebalanceAt,
    lastRebalanceReason: newest.lastRebalanceReason,
    upStreak: null,
    downStreak: null,
    upCooldownRemainingMs: null,
    downCooldownRemainingMs: null,
    remoteActiveWorkers: null,
  };
}
