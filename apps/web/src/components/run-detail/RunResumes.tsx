import type { RunEvent } from "@oah/contract";
import { resumeLines } from "@/lib/durable/resumes";
import { Time } from "../Time";

/** Each time the run went on from a checkpoint: from where, after what, and what it did not do again. */
export function RunResumes({ events }: { events: RunEvent[] | undefined }) {
  const lines = resumeLines(events ?? []);
  if (lines.length === 0) return null;
  return (
    <ul className="resumes" aria-label="Resumes">
      {lines.map((line) => (
        <li key={line.eventId} className="resume">
          <strong>{line.text}</strong> <Time value={line.at} />
          <br />
          <span className="muted small">
            {line.avoided}
            {line.rerun ? ` ${line.rerun}` : ""}
          </span>
        </li>
      ))}
    </ul>
  );
}
