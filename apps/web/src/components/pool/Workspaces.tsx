import type { FleetWorkload } from "@oah/contract";
import { parkedText, workspaceRows } from "@/lib/pool/workspaces";

/** How the fleet's work divides between workspaces: waiting, executing, and parked. */
export function Workspaces({ workload }: { workload: FleetWorkload }) {
  const rows = workspaceRows(workload);
  return (
    <section className="workspaces" aria-labelledby="workspaces-title">
      <h3 id="workspaces-title">Workspaces</h3>
      <p className="muted small" data-testid="parked-runs">
        {parkedText(workload.parkedRuns)}
      </p>
      {rows.length === 0 ? (
        <p className="muted">No workspace has work now.</p>
      ) : (
        <div className="table-wrap">
          <table className="dense-table" aria-label="Workspaces">
            <thead>
              <tr>
                <th>Workspace</th>
                <th className="num" title="Sessions with a run waiting for a slot">
                  Ready sessions
                </th>
                <th className="num" title="Runs holding a slot: running, or waiting for a tool on hold">
                  Executing
                </th>
                <th className="num" title="Runs waiting for a tool result without a slot">
                  Parked
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.workspaceId} data-workspace-id={w.workspaceId}>
                  <td className="mono">{w.workspaceId}</td>
                  <td className="num">{w.readySessions}</td>
                  <td className="num">{w.executingRuns}</td>
                  <td className="num">{w.parkedRuns}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
