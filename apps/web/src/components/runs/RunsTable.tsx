import type { RunSummary } from "@oah/contract";
import type { RunFilters } from "@/lib/storage-filters/view";
import { RunRow } from "./RunRow";
import { SelectAll } from "./SelectAll";
import type { Requeues } from "./useRequeues";
import type { RunSelection } from "./useSelection";

const COLUMNS = [
  "id",
  "session",
  "status",
  "error code",
  "recovery state",
  "attempts",
  "created",
  "started",
  "ended",
  "worker",
];

export function RunsTable({
  rows,
  stale,
  filters,
  selection,
  requeues,
}: {
  rows: RunSummary[];
  /** The rows are the previous query's while the current one loads. */
  stale: boolean;
  filters: RunFilters;
  selection: RunSelection;
  requeues: Requeues;
}) {
  return (
    <div className={`table-wrap${stale ? " is-stale" : ""}`}>
      <table className="runs-table" aria-labelledby="runs-title" aria-busy={stale}>
        <thead>
          <tr>
            <th scope="col" className="col-check">
              <SelectAll rows={rows} selection={selection} />
            </th>
            {COLUMNS.map((c) => (
              <th key={c} scope="col" className={c === "attempts" ? "num" : undefined}>
                {c}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((run) => (
            <RunRow key={run.id} run={run} filters={filters} selection={selection} requeues={requeues} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
