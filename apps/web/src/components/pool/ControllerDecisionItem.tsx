import type { FleetDecision } from "@oah/core";
import { pressuresText } from "@/lib/pool/labels";
import { ReasonBadge } from "../Badges";
import { Time } from "../Time";

/** One sizing decision of the controller, for the whole fleet, in sandboxes. */
export function ControllerDecisionItem({ decision: d }: { decision: FleetDecision }) {
  return (
    <li
      className="by-controller"
      data-testid="controller-decision"
      data-at={d.at}
      data-reason={d.reason}
      data-blocked-by={d.blockedBy ?? undefined}
    >
      <span className="timeline-time">
        <Time value={d.at} />
      </span>
      <ReasonBadge reason={d.reason} />
      {d.blockedBy ? <code className="code code-error">{d.blockedBy}</code> : null}
      <span className="timeline-main">
        sandboxes <strong>{d.previousDesired ?? "—"}</strong> → <strong>{d.desiredReplicas}</strong>
        <span className="muted">
          {" "}
          · suggested {d.suggestedReplicas} · actual {d.actualReplicas} · ready {d.figures.readySessionCount}{" "}
          · busy {d.figures.busyWorkers}/{d.figures.activeWorkers} workers · busy slots {d.figures.busySlots}
        </span>
      </span>
      <span className="mono small muted" title="queue, saturation, subagent reserve and age pressure">
        {pressuresText(d.figures.pressures)}
      </span>
      <span className="badge controller-tag" title="decided by the leading controller, for the whole fleet">
        controller
      </span>
    </li>
  );
}
