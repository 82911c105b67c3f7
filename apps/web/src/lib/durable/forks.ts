import type { Run, RunSummary } from "@oah/contract";

/** How many of the session's runs after a run the console reads to find its forks. */
export const FORKS_SCAN = 200;

/**
 * The forks of a run among runs of its session (docs/spec.md §7): a fork goes to the tail of its
 * source's session, so all of them come after the source in that session's order.
 */
export const forksOf = <R extends Pick<RunSummary, "id" | "forkedFrom">>(
  runs: readonly R[],
  source: Pick<Run, "id">,
): R[] => runs.filter((r) => r.forkedFrom?.runId === source.id);
