import type { FleetWorkload, WorkspaceLoad } from "@oah/contract";

/** The workspaces of the fleet's workload, busiest first: most sessions waiting, then most executing. */
export function workspaceRows(workload: FleetWorkload): WorkspaceLoad[] {
  return [...workload.workspaces].sort(
    (a, b) =>
      b.readySessions - a.readySessions ||
      b.executingRuns - a.executingRuns ||
      b.parkedRuns - a.parkedRuns ||
      (a.workspaceId < b.workspaceId ? -1 : 1),
  );
}

/** The line above the table: how many runs wait parked, holding nothing. */
export function parkedText(parkedRuns: number): string {
  if (parkedRuns === 0) return "No run parked.";
  return `${parkedRuns} ${parkedRuns === 1 ? "run" : "runs"} parked waiting for a tool result, holding no slot.`;
}
