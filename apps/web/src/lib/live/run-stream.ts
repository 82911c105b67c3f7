import type { RunEvent, StreamedEvent } from "@oah/contract";
import { TERMINAL_EVENT } from "@oah/core";

/** The run page's page of events, as `runs.events` answers it. */
export interface EventsPage {
  items: RunEvent[];
  nextCursor: number | null;
}

/**
 * Two views of a run's events as one: their union by id, in order, cut at `limit` with the
 * cursor `runs.events` would give. Events never change once stored, so whichever of a refetch
 * and the stream came last, nothing either brought is lost.
 */
export function mergeEvents(
  current: EventsPage | undefined,
  incoming: readonly RunEvent[],
  limit: number,
): EventsPage {
  const byId = new Map<number, RunEvent>();
  for (const e of current?.items ?? []) byId.set(e.id, e);
  for (const e of incoming) byId.set(e.id, e);
  const all = [...byId.values()].sort((a, b) => a.id - b.id);
  const items = all.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: items.length === limit && last ? last.id : null };
}

/** The newest event a page holds: where a new subscription takes over. */
export function lastEventId(page: EventsPage | undefined): number | undefined {
  return page?.items[page.items.length - 1]?.id;
}

/** A model's text as it is written: live `model.delta` events, never stored. */
export interface ModelDelta {
  type: "model.delta";
  data: { stepId: number; index: number; text: string };
}

/** The model step being written, with its parts by index (a part seen twice is kept once). */
export interface Writing {
  stepId: number;
  parts: { index: number; text: string }[];
}

export function isModelDelta(event: StreamedEvent): event is StreamedEvent & ModelDelta {
  const data = event.data as Partial<ModelDelta["data"]> | null;
  return (
    event.type === "model.delta" &&
    typeof data?.stepId === "number" &&
    typeof data.index === "number" &&
    typeof data.text === "string"
  );
}

/** A stored event, as opposed to a live one (which has no id of its own). */
export const isStored = (event: StreamedEvent): event is RunEvent => "id" in event;

/** A delta of another step starts over: only the step being written now is shown. */
export function applyDelta(writing: Writing | null, delta: ModelDelta): Writing {
  const { stepId, index, text } = delta.data;
  if (!writing || writing.stepId !== stepId) return { stepId, parts: [{ index, text }] };
  if (writing.parts.some((p) => p.index === index)) return writing;
  return { stepId, parts: [...writing.parts, { index, text }].sort((a, b) => a.index - b.index) };
}

const RUN_ENDS: readonly string[] = Object.values(TERMINAL_EVENT);

/** The stored end of the model step being written (or of its run) replaces what was shown of it. */
export function settleWriting(writing: Writing | null, event: RunEvent): Writing | null {
  if (!writing || RUN_ENDS.includes(event.type)) return null;
  if (event.type !== "model.completed" && event.type !== "model.failed") return writing;
  return event.data?.stepId === writing.stepId ? null : writing;
}

export const writingText = (writing: Writing): string => writing.parts.map((p) => p.text).join("");
