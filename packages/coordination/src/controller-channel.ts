import type { ControllerReport, Rollout } from "@oah/contract";

/**
 * How the API reaches the fleet's controllers (docs/spec.md §8): the leader's published report, and
 * the rolling restarts it is asked for and carries out. Absent when no controller can run
 * (the embedded mode).
 */
export interface ControllerChannel {
  /** The leading controller's last report; null when none leads. */
  report(): Promise<ControllerReport | null>;
  /** Queues a rolling restart for the leader to pick up. */
  requestRollout(rollout: Rollout): Promise<void>;
  rollout(rolloutId: string): Promise<Rollout | null>;
}
