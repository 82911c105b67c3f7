import type { RunEvent } from "@oah/contract";
import { eventDataText, eventTypeClass } from "@/lib/run-detail/events";
import { ErrorState } from "../ErrorBanner";
import { Time } from "../Time";

function EventsTable({ events }: { events: RunEvent[] }) {
  if (events.length === 0) return <p className="muted small">No events.</p>;
  return (
    <table className="dense-table" aria-label="Events">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">time</th>
          <th scope="col">type</th>
          <th scope="col">data</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => {
          const data = eventDataText(e.data);
          return (
            <tr key={e.id} data-event-type={e.type}>
              <td className="num muted">{e.id}</td>
              <td className="time">
                <Time value={e.at} />
              </td>
              <td>
                <span className={`event-type ${eventTypeClass(e.type)}`}>{e.type}</span>
              </td>
              <td className="mono small event-data" title={data.full}>
                {data.line}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The run's events panel: the first page of them, and where the rest are. */
export function RunEvents({
  runId,
  page,
  error,
  onRetry,
}: {
  runId: string;
  page: { items: RunEvent[]; nextCursor: number | null } | undefined;
  error: unknown;
  onRetry: () => void;
}) {
  return (
    <section className="panel" aria-labelledby="events-title">
      <h2 id="events-title">
        Events <span className="muted small">{page ? `${page.items.length} in order` : ""}</span>
      </h2>
      {page ? (
        <>
          <EventsTable events={page.items} />
          {page.nextCursor !== null ? (
            <p className="muted small">
              The first {page.items.length} events; the rest are in{" "}
              <code>
                GET /api/v1/runs/{runId}/events?after={page.nextCursor}
              </code>
              .
            </p>
          ) : null}
        </>
      ) : error ? (
        <ErrorState what="events" error={error} onRetry={onRetry} />
      ) : (
        <p className="muted">Loading events…</p>
      )}
    </section>
  );
}
