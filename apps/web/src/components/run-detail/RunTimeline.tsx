import type { Run } from "@oah/contract";
import { timelineEntries } from "@/lib/run-detail/timeline";
import { Time } from "../Time";

export function RunTimeline({ run }: { run: Run }) {
  return (
    <ol className="run-timeline" aria-label="Timeline">
      {timelineEntries(run).map((e) => (
        <li key={e.label} className={e.at ? "is-done" : undefined}>
          <span className="run-timeline-label">{e.label}</span>
          <Time value={e.at} />
          {e.note ? <span className="run-timeline-note">{e.note}</span> : null}
        </li>
      ))}
    </ol>
  );
}
