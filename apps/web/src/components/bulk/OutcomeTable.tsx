import type { BulkAction } from "@oah/core";
import { outcomeRows } from "@/lib/bulk/report";
import { RunId } from "../RunId";

/** The runs of a dry run or a job by outcome: what the action does, then what it refuses, with examples. */
export function OutcomeTable({
  action,
  outcomes,
  examples,
}: {
  action: BulkAction;
  outcomes: Record<string, number>;
  examples?: Record<string, string[]>;
}) {
  const rows = outcomeRows(action, outcomes, examples);
  if (rows.length === 0) return <p className="muted">No run.</p>;
  return (
    <table className="dense-table" aria-label="Outcomes">
      <thead>
        <tr>
          <th>Outcome</th>
          <th className="num">Runs</th>
          {examples ? <th>Examples</th> : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.outcome} data-outcome={row.outcome}>
            <td>
              <code className={row.acts ? "code" : "code code-error"}>{row.outcome}</code>
            </td>
            <td className="num" data-testid={`outcome-${row.outcome}`}>
              {row.count}
            </td>
            {examples ? (
              <td>
                {row.examples.map((id) => (
                  <span key={id}>
                    <RunId id={id} short />{" "}
                  </span>
                ))}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
