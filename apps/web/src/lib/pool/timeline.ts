import type { PoolOverview } from "@oah/contract";
import type { FleetDecision } from "@oah/core";
import { decisionsOf } from "./hosts";

/** One entry of the decisions timeline: a host pool's sizing, or the controller's sizing of the fleet. */
export type TimelineEntry =
  | { source: "pool"; at: number; decision: PoolOverview["recentDecisions"][number] }
  | { source: "controller"; at: number; decision: FleetDecision };

/**
 * The pools' decisions of one host (or of all hosts) and the controller's, newest first. The
 * controller's are shown with any host: they size the fleet the host is part of.
 */
export function decisionTimeline(
  pools: PoolOverview["recentDecisions"],
  controller: readonly FleetDecision[],
  hostId: string,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    ...decisionsOf(pools, hostId).map((decision) => ({ source: "pool" as const, at: decision.at, decision })),
    ...controller.map((decision) => ({ source: "controller" as const, at: decision.at, decision })),
  ];
  // Stable: at the same instant, a host's decision stays before the controller's.
  return entries.sort((a, b) => b.at - a.at);
}
