import type { SessionQueue } from "@oah/coordination";
import type { QueueEntry } from "@oah/core";
import type { RecoveryStore } from "@oah/store";

/** The runs the store says await a slot and have waited long: those the queue lost, and the others. */
export interface LongAwaiting {
  lost: QueueEntry[];
  /** Held by the queue, or in a claim's hands. */
  held: QueueEntry[];
}

/**
 * Runs that await a slot (queued, or parked with their tool result) since before
 * `enqueuedBefore` (longer than a claim takes to start one), split by whether the queue lost
 * them: it does not hold them and their session's lock is free. Read by reconcile on its
 * period and by the jam scan (docs/spec.md §7).
 */
export async function findLongAwaiting(
  store: RecoveryStore,
  queue: SessionQueue,
  enqueuedBefore: number,
  limit: number,
): Promise<LongAwaiting> {
  const long = await store.listAwaitingSlot({ enqueuedBefore, limit });
  const lostIds = new Set(await queue.lost(long));
  return {
    lost: long.filter((e) => lostIds.has(e.runId)),
    held: long.filter((e) => !lostIds.has(e.runId)),
  };
}

/**
 * Enqueues again those of these lost runs that still await a slot (read again after the
 * queue: a run that started and ended between the two reads is not lost). Returns them.
 */
export async function enqueueLost(
  store: RecoveryStore,
  queue: SessionQueue,
  lost: readonly QueueEntry[],
): Promise<QueueEntry[]> {
  if (lost.length === 0) return [];
  const still = await store.awaitingSlot(lost.map((e) => e.runId));
  const again = lost.filter((e) => still.has(e.runId));
  await queue.enqueue(again);
  return again;
}

export const sessionsOf = (entries: readonly { sessionId: string }[]): string[] => [
  ...new Set(entries.map((e) => e.sessionId)),
];
