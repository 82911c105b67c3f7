import type { TimelineEntry } from "@/lib/pool/timeline";
import { ControllerDecisionItem } from "./ControllerDecisionItem";
import { PoolDecisionItem } from "./PoolDecisionItem";

/** The pools' and the controller's decisions in one timeline, newest first. */
export function Decisions({ entries, showHost }: { entries: TimelineEntry[]; showHost: boolean }) {
  if (entries.length === 0) return <p className="muted small">No decisions recorded yet.</p>;
  return (
    <ol className="timeline" aria-label="Recent decisions">
      {entries.map((e) =>
        e.source === "pool" ? (
          <PoolDecisionItem
            key={`${e.decision.hostId}-${e.at}-${e.decision.reason}`}
            decision={e.decision}
            showHost={showHost}
          />
        ) : (
          <ControllerDecisionItem key={`controller-${e.at}-${e.decision.reason}`} decision={e.decision} />
        ),
      )}
    </ol>
  );
}
