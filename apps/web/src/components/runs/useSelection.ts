"use client";

import type { RunSummary } from "@oah/contract";
import { useState } from "react";
import { type Selection, withoutRun, withRuns } from "@/lib/runs-panel/selection";

const NONE: Selection = new Map();

/** The runs chosen for a bulk requeue, and the ways to change the choice. */
export function useSelection() {
  const [selected, setSelected] = useState<Selection>(NONE);
  return {
    selected,
    set: (runs: readonly RunSummary[], on: boolean) => setSelected((s) => withRuns(s, runs, on)),
    remove: (runId: string) => setSelected((s) => withoutRun(s, runId)),
    clear: () => setSelected(NONE),
  };
}

export type RunSelection = ReturnType<typeof useSelection>;
