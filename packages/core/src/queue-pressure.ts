/** The queue's figures a pool sizes itself by (SPEC §5, §8), read in one round trip. */
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
