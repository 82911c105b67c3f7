import type { RunSummary } from "@oah/contract";
import { useEffect, useRef } from "react";
import { pageSelection } from "@/lib/runs-panel/selection";
import type { RunSelection } from "./useSelection";

/** The page's select-all box: checked when all of the page is selected, indeterminate when some is. */
export function SelectAll({ rows, selection }: { rows: RunSummary[]; selection: RunSelection }) {
  const ref = useRef<HTMLInputElement>(null);
  const state = pageSelection(rows, selection.selected);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === "some";
  }, [state]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select all on page"
      checked={state === "all"}
      disabled={rows.length === 0}
      onChange={(event) => selection.set(rows, event.target.checked)}
    />
  );
}
