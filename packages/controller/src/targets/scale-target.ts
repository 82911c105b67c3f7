import type { ControllerTarget, FleetHost, HostOrder } from "@oah/core";

/** What a scale target may do in the leader's name: every act is fenced by its lease. */
export interface LeaderActs {
  /** True while this controller still leads: asked right before each scale call. */
  stillLeads(): Promise<boolean>;
  /** Gives a host an order under the lease; false (and nothing given) once deposed. */
  order(hostId: string, order: HostOrder | null): Promise<boolean>;
}

/**
 * Where the sandboxes live (docs/spec.md §8): it starts them, and removes them once drained,
 * never a busy one. Each tick the leader asks it to move toward `desired` sandboxes.
 *
 * The rules every target keeps: a draining or drained sandbox is no longer counted; a
 * scale-down drains its victims first (the least busy), and starts no new drain while one
 * is under way; a drained sandbox is the first removed.
 */
export interface ScaleTarget {
  readonly kind: ControllerTarget;
  /**
   * One step toward `desired` sandboxes, `hosts` being what the pools' board shows now.
   * Answers the sandboxes the target counts (serving, or starting).
   */
  reconcile(desired: number, hosts: readonly FleetHost[], leader: LeaderActs): Promise<number>;
  /** Why this target cannot carry out a rolling restart, or null when it can. */
  readonly rolloutRefusal: string | null;
  close(): Promise<void>;
}

/** The sandboxes a target counts: those that serve or are cordoned by an operator. */
export const countedHosts = (hosts: readonly FleetHost[]): FleetHost[] =>
  hosts.filter((h) => h.state === "active" || h.state === "cordoned");

/** The sandboxes a scale-down to `desired` drains, least busy first; none while a drain is under way. */
export function scaleDownVictims(
  hosts: readonly FleetHost[],
  desired: number,
  prefer?: (hostId: string) => boolean,
) {
  if (hosts.some((h) => h.state === "draining")) return [];
  const counted = countedHosts(hosts);
  const excess = counted.length - desired;
  if (excess <= 0) return [];
  return counted
    .filter((h) => h.state === "active")
    .sort(
      (a, b) =>
        Number(prefer ? !prefer(a.hostId) : 0) - Number(prefer ? !prefer(b.hostId) : 0) ||
        a.busySlots - b.busySlots ||
        b.hostId.localeCompare(a.hostId),
    )
    .slice(0, excess);
}
