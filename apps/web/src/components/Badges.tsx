import type { FleetDecisionReason, RebalanceReason, RecoveryState, RunStatus } from "@oah/core";

export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

/** A run parked in waiting_tool (metadata.parked): it waits for its tool result without holding a worker. */
export function ParkedBadge({ parked }: { parked: boolean | undefined }) {
  if (!parked) return null;
  return (
    <span
      className="badge parked"
      title="Waiting for its tool result without holding a worker or a slot; any host resumes it when the result arrives"
    >
      parked
    </span>
  );
}

export function RecoveryBadge({ state, title }: { state: RecoveryState | null; title?: string }) {
  if (!state) return <span className="muted">—</span>;
  return (
    <span className={`badge recovery-${state}`} title={title}>
      {state}
    </span>
  );
}

/** Why a pool or the controller sized as it did: one badge, as they share their reasons but `shutdown` and `blocked`. */
export function ReasonBadge({ reason }: { reason: RebalanceReason | FleetDecisionReason }) {
  return <span className={`badge reason-${reason}`}>{reason.replace("_", " ")}</span>;
}

export function Code({ children }: { children: string | null | undefined }) {
  if (!children) return <span className="muted">—</span>;
  return <code className="code">{children}</code>;
}
