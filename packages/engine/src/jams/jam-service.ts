import type { JamCounts, JamRepair, JamReport } from "@oah/contract";
import { JAM_KINDS, type JamKind } from "@oah/core";
import { type JamRepairDeps, repairJams } from "./jam-repair";
import { scanJams } from "./jam-scan";

/** Sessions listed per kind of jam; the count is of all found. */
const LISTED = 100;

/**
 * Jammed sessions for the API (docs/spec.md §7): found, counted (the overview, `/metrics`) and
 * repaired one kind at a time on an operator's demand, by any process, with or without workers.
 */
export class JamService {
  constructor(private readonly deps: JamRepairDeps) {}

  async report(): Promise<JamReport> {
    const { sessions } = await scanJams(this.deps);
    return {
      classes: JAM_KINDS.map((kind) => ({
        kind,
        count: sessions[kind].length,
        sessions: sessions[kind].slice(0, LISTED),
      })),
    };
  }

  async counts(): Promise<JamCounts> {
    const { sessions } = await scanJams(this.deps);
    return Object.fromEntries(JAM_KINDS.map((kind) => [kind, sessions[kind].length])) as JamCounts;
  }

  /** Repairs the sessions holding `kind` now, or those named that hold it. */
  async repair(kind: JamKind, sessionIds?: readonly string[]): Promise<JamRepair> {
    return repairJams(kind, await scanJams(this.deps, sessionIds), this.deps, sessionIds);
  }
}
