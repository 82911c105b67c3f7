import type { StreamedEvent } from "@oah/contract";
import type { StreamItem } from "@oah/engine";
import { type TrackedEnvelope, tracked } from "@trpc/server";

/**
 * A stream's items as tRPC tracks them: the id is sent as the SSE `id`, and a reconnecting
 * client sends it back as `lastEventId`, where the stream resumes.
 */
export async function* trackedItems(
  items: AsyncIterable<StreamItem>,
): AsyncGenerator<TrackedEnvelope<StreamedEvent>> {
  for await (const item of items) yield tracked(String(item.id), item.event);
}

/** tRPC gives every subscription a signal; a caller without one gets a stream that never ends by itself. */
export function streamSignal(signal: AbortSignal | undefined): AbortSignal {
  return signal ?? new AbortController().signal;
}
