import type { RunEvent } from "@oah/contract";

/** The class of an event's type, by its second part (`run.failed` → `event-failed`). */
export const eventTypeClass = (type: string) => `event-${type.split(".")[1] ?? "other"}`;

/** An event's data on one line, and in full for its tooltip. */
export function eventDataText(data: RunEvent["data"]): { line: string; full: string | undefined } {
  return data
    ? { line: JSON.stringify(data), full: JSON.stringify(data, null, 2) }
    : { line: "", full: undefined };
}
