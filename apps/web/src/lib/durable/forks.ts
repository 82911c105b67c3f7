/** How many of a run's forks its page lists, newest first; the rest are in the Storage view. */
export const FORKS_SHOWN = 50;

/** The Storage view of the runs forked from a run (its filter `forkedFrom`). */
export const forksHref = (runId: string) => `/storage?forkedFrom=${encodeURIComponent(runId)}`;
