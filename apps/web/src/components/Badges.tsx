import type { RebalanceReason, RecoveryState, RunStatus } from "@oah/core";

export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

export function RecoveryBadge({ state, title }: { state: RecoveryState | null; title?: string }) {
  if (!state) return <span className="muted">—</span>;
  return (
    <span className={`badge recovery-${state}`} title={title}>
      {state}
    </span>
  );
}

export function ReasonBadge({ reason }: { reason: RebalanceReason }) {
  return <span className={`badge reason-${reason}`}>{reason.replace("_", " ")}</span>;
}

export function Code({ children }: { children: string | null | undefined }) {
  if (!children) return <span className="muted">—</span>;
  return <code className="code">{children}</code>;
}
