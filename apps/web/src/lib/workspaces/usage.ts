import type { ModelUsageHour, WorkspaceLoad } from "@oah/contract";
import type { ModelTokens } from "../usage/run-usage";

/** The hours a workspace's bar shows: the current one and the 23 before it. */
export const HOURS = 24;
const HOUR_MS = 3_600_000;

/** The start of the hour `now` falls in, as epoch ms. */
const hourStart = (now: number) => Math.floor(now / HOUR_MS) * HOUR_MS;

/**
 * What to ask `admin.modelUsage` for: from the start of the first of the 24 hours, so that the
 * answer holds those hours and no partial 25th.
 */
export function usageWindow(now: number): { from: string } {
  return { from: new Date(hourStart(now) - (HOURS - 1) * HOUR_MS).toISOString() };
}

/** One hour of a workspace's bar. */
export interface HourTokens {
  /** The hour's start, ISO. */
  hour: string;
  tokens: number;
}

/** One workspace's line: its load now, and what its model calls spent over the 24 hours. */
export interface WorkspaceUsageRow extends ModelTokens {
  workspaceId: string;
  executingRuns: number;
  readySessions: number;
  parkedRuns: number;
  /** Prompt + completion. */
  tokens: number;
  /** 24 hours, oldest first; an hour with no call is zero. */
  hours: HourTokens[];
}

/**
 * Every workspace that has work now or made a model call in the 24 hours ending with the hour
 * `now` falls in, most tokens first (then most executing, then by id). Usage hours outside the
 * 24 are left out.
 */
export function workspaceUsageRows(
  load: readonly WorkspaceLoad[],
  usage: readonly ModelUsageHour[],
  now: number,
): WorkspaceUsageRow[] {
  const first = hourStart(now) - (HOURS - 1) * HOUR_MS;
  const rows = new Map<string, WorkspaceUsageRow>();
  const rowOf = (workspaceId: string) => {
    let row = rows.get(workspaceId);
    if (!row) {
      row = {
        workspaceId,
        executingRuns: 0,
        readySessions: 0,
        parkedRuns: 0,
        calls: 0,
        promptTokens: 0,
        completionTokens: 0,
        tokens: 0,
        hours: Array.from({ length: HOURS }, (_, i) => ({
          hour: new Date(first + i * HOUR_MS).toISOString(),
          tokens: 0,
        })),
      };
      rows.set(workspaceId, row);
    }
    return row;
  };
  for (const w of load)
    Object.assign(rowOf(w.workspaceId), {
      executingRuns: w.executingRuns,
      readySessions: w.readySessions,
      parkedRuns: w.parkedRuns,
    });
  for (const u of usage) {
    const index = Math.floor((hourStart(Date.parse(u.hour)) - first) / HOUR_MS);
    if (index < 0 || index >= HOURS) continue;
    const row = rowOf(u.workspaceId);
    const tokens = u.promptTokens + u.completionTokens;
    row.calls += u.calls;
    row.promptTokens += u.promptTokens;
    row.completionTokens += u.completionTokens;
    row.tokens += tokens;
    row.hours[index]!.tokens += tokens;
  }
  return [...rows.values()].sort(
    (a, b) =>
      b.tokens - a.tokens ||
      b.executingRuns - a.executingRuns ||
      (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0),
  );
}
