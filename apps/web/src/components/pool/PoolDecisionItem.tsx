import type { PoolOverview } from "@oah/contract";
import { pressuresText } from "@/lib/pool/labels";
import { ReasonBadge } from "../Badges";
import { Time } from "../Time";

/** One sizing decision of a host's pool. */
export function PoolDecisionItem({
  decision: d,
  showHost,
}: {
  decision: PoolOverview["recentDecisions"][number];
  showHost: boolean;
}) {
  return (
    <li data-testid="decision" data-host={d.hostId} data-at={d.at} data-reason={d.reason}>
      <span className="timeline-time">
        <Time value={d.at} />
      </span>
      <ReasonBadge reason={d.reason} />
      <span className="timeline-main">
        desired <strong>{d.previousDesired ?? "—"}</strong> → <strong>{d.desired}</strong>
        <span className="muted">
          {" "}
          · suggested {d.localSuggested} local / {d.globalSuggested} global · ready {d.readySessionCount} ·
          busy {d.busyWorkers}/{d.activeWorkers} active · remote {d.remoteActiveWorkers}
        </span>
      </span>
      <span className="mono small muted" title="queue, saturation, subagent reserve and age pressure">
        {pressuresText(d.pressures)}
      </span>
      {showHost ? <span className="mono small host-tag">{d.hostId}</span> : null}
    </li>
  );
}
