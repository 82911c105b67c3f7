import { auditRetention } from "./audit-retention";
import { parkedTimeouts } from "./parked-timeouts";
import { queueReconcile } from "./queue-reconcile";
import { queueRefill } from "./queue-refill";
import { staleRunScan } from "./stale-run-scan";
import type { MaintenancePlugin } from "./task";

/**
 * A worker host's maintenance, in the order of its pass at start: stale runs are
 * recovered first (requeued runs go back to the queue), then the queue is refilled
 * from the store if its state is gone, then reconciled with the store; then the parked runs
 * past their deadline are ended, and the audit log's old entries deleted. A new task is a new
 * file and one line here.
 */
export const MAINTENANCE_PLUGINS: readonly MaintenancePlugin[] = [
  staleRunScan,
  queueRefill,
  queueReconcile,
  parkedTimeouts,
  auditRetention,
];
