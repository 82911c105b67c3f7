import type { ControllerReport, PoolSnapshot } from "@oah/contract";
import type { HostState } from "@oah/core";
import { duration } from "../format";

/** What each state means for the runs, as the badges' tooltips say it. */
const STATE_HINTS: Record<HostState, string> = {
  active: "claims runs",
  cordoned: "claims no new run; the runs in hand finish",
  draining: "claims no new run; the runs in hand finish until the drain timeout, then go to recovery",
  drained: "claims nothing and holds no run",
};

/**
 * A snapshot not renewed for two of its intervals is late: the host is stuck or gone (its
 * snapshot lapses soon after). `now` is when the snapshot was read, not when it is drawn.
 */
export const isLate = (host: Pick<PoolSnapshot, "at" | "intervalMs">, now: number): boolean =>
  now - host.at > 2 * host.intervalMs;

export interface HostBadge {
  label: string;
  className: string;
  title: string;
}

/** A host's badges: its state, and "late" beside it when its snapshot is late. */
export function hostBadges(
  host: Pick<PoolSnapshot, "state" | "at" | "intervalMs">,
  now: number,
): HostBadge[] {
  const badges: HostBadge[] = [
    { label: host.state, className: `host-${host.state}`, title: STATE_HINTS[host.state] },
  ];
  if (isLate(host, now)) {
    badges.push({
      label: "late",
      className: "host-late",
      title: `no snapshot for ${duration(now - host.at)} (one is expected every ${duration(host.intervalMs)})`,
    });
  }
  return badges;
}

/** Who sizes the fleet: the leading controller, or nobody. */
export const controllerText = (controller: ControllerReport | null): string =>
  controller ? `leader ${controller.leaderId}` : "no controller";
