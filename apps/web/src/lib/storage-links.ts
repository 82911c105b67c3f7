import type { DeadLetterGroup } from "@oah/contract";
import { DEFAULT_LIMIT, EMPTY_FILTERS, filtersToQuery, type RunFilters } from "./storage-filters/view";

/** The Storage view of one session: the given view's other filters stay, a run filter would hide the others. */
export const sessionHref = (sessionId: string, view: RunFilters = EMPTY_FILTERS) =>
  `/storage${filtersToQuery({ ...view, sessionId, runId: "" })}`;

/** The CSV of a view: every page of its filters, so the page size is not part of it. */
export const csvExportHref = (view: RunFilters) =>
  `/api/storage/runs.csv${filtersToQuery({ ...view, limit: DEFAULT_LIMIT })}`;

/** The view of a dead-letter group's runs: what its drill-down lists and its requeue acts on. */
export const deadLetterView = (group: DeadLetterGroup): RunFilters => ({
  ...EMPTY_FILTERS,
  recoveryState: ["quarantined"],
  recoveryReason: [group.reason],
  errorCode: group.errorCode === null ? [] : [group.errorCode],
  workspaceId: group.workspaceId,
});

export const storageHref = (view: RunFilters) => `/storage${filtersToQuery(view)}`;
