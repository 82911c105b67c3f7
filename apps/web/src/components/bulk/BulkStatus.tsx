import type { BulkJobStatus } from "@oah/core";

const CLASS: Record<BulkJobStatus, string> = {
  running: "status-running",
  completed: "status-completed",
  aborted: "status-cancelled",
  failed: "status-failed",
};

export function BulkStatus({ status }: { status: BulkJobStatus }) {
  return (
    <span className={`badge ${CLASS[status]}`} data-testid="bulk-status">
      {status}
    </span>
  );
}
