import type { PoolOverview, PoolSnapshot } from "@oah/contract";

/** The host picker's choice of every host at once. */
export const ALL_HOSTS = "__all__";

export interface ShownHost {
  /** The chosen host, or ALL_HOSTS. */
  hostId: string;
  /** The chosen host's snapshot; null for all hosts. */
  host: PoolSnapshot | null;
  /** The snapshots the facts sum up. */
  snapshots: readonly PoolSnapshot[];
}

/** What the pool section shows for a choice of the host picker; a host that went away gives all hosts. */
export function shownHost(hosts: readonly PoolSnapshot[], chosen: string): ShownHost {
  const host = chosen === ALL_HOSTS ? null : (hosts.find((h) => h.hostId === chosen) ?? null);
  return host
    ? { hostId: host.hostId, host, snapshots: [host] }
    : { hostId: ALL_HOSTS, host, snapshots: hosts };
}

/** The recent decisions of one host, or of all hosts; newest first, as the API lists them. */
export function decisionsOf(decisions: PoolOverview["recentDecisions"], hostId: string) {
  return hostId === ALL_HOSTS ? decisions : decisions.filter((d) => d.hostId === hostId);
}
