import type { SteeringMessage } from "@/lib/steering/messages";
import { Time } from "../Time";

/**
 * Messages sent to the run (docs/spec.md §5, *Steering*), as the user's turns of its conversation:
 * before the model step that received them, or, with `note`, where none did.
 */
export function SteeringMessages({
  label,
  messages,
}: {
  label: string;
  messages: { message: SteeringMessage; note?: string }[];
}) {
  if (messages.length === 0) return null;
  return (
    <ul className="steering" aria-label={label}>
      {messages.map(({ message, note }) => (
        <li key={message.eventId} className="steering-message" data-message-id={message.eventId}>
          <span className="muted small">message</span>{" "}
          <q title={message.shown === message.content ? undefined : message.content}>{message.shown}</q>{" "}
          <span className="subtle small">
            sent <Time value={message.at} />
          </span>
          {note ? <span className="muted small"> · {note}</span> : null}
        </li>
      ))}
    </ul>
  );
}
