import {
  RECOVERY_REASONS,
  RECOVERY_STATES,
  RUN_ERROR_CODES,
  RUN_ID_PATTERN,
  RUN_STATUSES,
  SESSION_ID_PATTERN,
  WORKSPACE_ID_PATTERN,
} from "@oah/core";
import { listFilter, textFilter } from "./kinds";

/**
 * Every filter of the Storage view, in the order the filter bar shows them and the URL lists
 * them. A filter's key is its URL parameter and its member of the admin.runs input.
 */
export const STORAGE_FILTERS = {
  status: listFilter({ label: "Status", options: RUN_STATUSES, counts: (overview) => overview.statusCounts }),
  errorCode: listFilter({ label: "Error code", options: RUN_ERROR_CODES }),
  recoveryState: listFilter({ label: "Recovery state", options: RECOVERY_STATES }),
  recoveryReason: listFilter({ label: "Recovery reason", options: RECOVERY_REASONS }),
  sessionId: textFilter({
    label: "Session",
    placeholder: "session id",
    pattern: SESSION_ID_PATTERN,
    expected: "1–128 characters of A–Z a–z 0–9 . _ : -",
  }),
  runId: textFilter({
    label: "Run",
    placeholder: "run_…",
    pattern: RUN_ID_PATTERN,
    expected: "run_ followed by 26 ULID characters",
  }),
  workspaceId: textFilter({
    label: "Workspace",
    placeholder: "workspace id",
    pattern: WORKSPACE_ID_PATTERN,
    expected: "1–64 characters of A–Z a–z 0–9 . _ -, not starting with a dot",
  }),
  forkedFrom: textFilter({
    label: "Forked from",
    placeholder: "run_…",
    pattern: RUN_ID_PATTERN,
    expected: "run_ followed by 26 ULID characters: the runs forked from it",
  }),
};
