import type { FleetWorkload, WorkspaceLoad } from "@oah/contract";
import type { SessionQueue } from "@oah/coordination";
import type { RunReads } from "@oah/store";

/** The most workspaces the report lists: it reads a bounded part of the queue, never all of it. */
const WORKSPACES_LISTED = 200;

/**
 * What the fleet works on, per workspace: its ready sessions, from the queue; its runs executing
 * and parked, from the store (the source of truth, which every host writes).
 */
export async function fleetWorkload(
  store: Pick<RunReads, "activeByWorkspace">,
  queue: Pick<SessionQueue, "readyByWorkspace">,
): Promise<FleetWorkload> {
  const [active, ready] = await Promise.all([
    store.activeByWorkspace(),
    queue.readyByWorkspace(WORKSPACES_LISTED),
  ]);
  const byId = new Map<string, WorkspaceLoad>();
  const loadOf = (workspaceId: string) => {
    let load = byId.get(workspaceId);
    if (!load) {
      load = { workspaceId, readySessions: 0, executingRuns: 0, parkedRuns: 0 };
      byId.set(workspaceId, load);
    }
    return load;
  };
  for (const { workspaceId, readySessions } of ready) loadOf(workspaceId).readySessions = readySessions;
  for (const { workspaceId, executingRuns, parkedRuns } of active)
    Object.assign(loadOf(workspaceId), { executingRuns, parkedRuns });
  const workspaces = [...byId.values()]
    .sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0))
    .slice(0, WORKSPACES_LISTED);
  return { parkedRuns: active.reduce((n, a) => n + a.parkedRuns, 0), workspaces };
}
