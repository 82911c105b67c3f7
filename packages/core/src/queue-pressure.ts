/** The queue's figures a pool sizes itself by (docs/spec.md §5, §8), read in one round trip. */
export interface QueuePressure {
  readyQueueDepth: number;
  uniqueReadySessionCount: number;
  subagentReadySessionCount: number;
  subagentReadyQueueDepth: number;
  lockedReadySessionCount: number;
  staleReadySessionCount: number;
  readySessionCount: number;
  oldestSchedulableReadyAgeMs: number;
}

/** An empty queue's pressure: where a figure starts before it is read. */
export const NO_QUEUE_PRESSURE: QueuePressure = {
  readyQueueDepth: 0,
  uniqueReadySessionCount: 0,
  subagentReadySessionCount: 0,
  subagentReadyQueueDepth: 0,
  lockedReadySessionCount: 0,
  staleReadySessionCount: 0,
  readySessionCount: 0,
  oldestSchedulableReadyAgeMs: 0,
};
