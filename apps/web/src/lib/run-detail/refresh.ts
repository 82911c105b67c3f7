import type { Run } from "@oah/contract";
import { REFRESH_MS } from "../constants";
import { isCancellable } from "../runs";

/** How often a run page refreshes: often while the run may still change (or is not loaded yet), seldom once it ended. */
export function runRefreshMs(status: Run["status"] | undefined): number {
  return status === undefined || isCancellable({ status }) ? 1_500 : REFRESH_MS * 2;
}
