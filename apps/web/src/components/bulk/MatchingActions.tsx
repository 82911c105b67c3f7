"use client";

import type { StorageRunFilters } from "@oah/contract";
import type { BulkAction } from "@oah/core";
import { useState } from "react";
import { BulkActionDialog } from "./BulkActionDialog";

/** "Requeue all matching" and "Cancel all matching": every run of the filter, not only the page's. */
export function MatchingActions({ filter }: { filter: StorageRunFilters }) {
  const [action, setAction] = useState<BulkAction | null>(null);
  return (
    <>
      <button type="button" className="btn" onClick={() => setAction("requeue")}>
        Requeue all matching…
      </button>
      <button type="button" className="btn" onClick={() => setAction("cancel")}>
        Cancel all matching…
      </button>
      <BulkActionDialog
        action={action ?? "requeue"}
        filter={filter}
        open={action !== null}
        onClose={() => setAction(null)}
      />
    </>
  );
}
