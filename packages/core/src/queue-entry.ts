export const RUN_PRIORITIES = ["normal", "subagent"] as const;
export type RunPriority = (typeof RUN_PRIORITIES)[number];

/** What a session queue holds of a queued run; the run itself lives in the store. */
export interface QueueEntry {
  runId: string;
  sessionId: string;
  /** The run's workspace: whose fair share its claim counts against. */
  workspaceId: string;
  /** Position in the session's queue; lower runs first. */
  queueSeq: number;
  priority: RunPriority;
  /** When the run (re)entered the queue, epoch ms: the start of its queue wait. */
  enqueuedAt: number;
  /**
   * A parked run whose tool result has arrived: the claim continues its execution from the
   * state it saved (docs/spec.md §6) instead of starting it. Its queueSeq puts it at the front
   * of its session's queue, where it stayed unfinished.
   */
  resume?: true;
}
