import type { WorkerLease } from "@oah/contract";

/** Where worker hosts see each other's workers (docs/spec.md §8): leases that lapse unless renewed. */
export interface WorkerRegistry {
  /** Writes or renews these leases for `ttlMs`, and prunes lapsed ones. */
  publish(leases: readonly WorkerLease[], ttlMs: number): Promise<void>;
  /** Every lease that has not lapsed, healthy or late. */
  list(): Promise<WorkerLease[]>;
  remove(workerIds: readonly string[]): Promise<void>;
}

/** A lease renewed within two of its intervals; a late one still counts as present, not as capacity. */
export const isHealthyLease = (lease: WorkerLease, now: number): boolean =>
  now - lease.lastSeenAt <= 2 * lease.intervalMs;
