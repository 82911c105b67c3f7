import type { ReactNode } from "react";
import { REFRESH_MS } from "@/lib/constants";
import type { LiveState } from "@/lib/live/state";

const LABELS: Record<LiveState, string> = {
  idle: "",
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting",
};

const HINTS: Record<LiveState, string> = {
  idle: `Refreshes every ${REFRESH_MS / 1000} s`,
  connecting: `Refreshes every ${REFRESH_MS / 1000} s until the stream is held`,
  live: "Changes appear as they happen",
  reconnecting: `The stream was lost: refreshes every ${REFRESH_MS / 1000} s until it is back`,
};

/** How the page keeps up: its stream's state, and what else it has to say (when it last updated). */
export function LiveBadge({
  state,
  failed = false,
  children,
}: {
  state: LiveState;
  failed?: boolean;
  children?: ReactNode;
}) {
  if (state === "idle" && !children) return null;
  return (
    <span className="live" title={HINTS[state]} data-testid="live-state" data-state={state}>
      <span className={`live-dot is-${failed ? "error" : state}`} aria-hidden="true" />
      {LABELS[state]}
      {LABELS[state] && children ? " · " : null}
      {children}
    </span>
  );
}
