/**
 * Lets one host at a time run each maintenance task (docs/spec.md §7). Exclusivity only saves
 * work: every recovery re-checks its run under the row lock, and enqueueing is idempotent.
 */
export interface MaintenanceLock {
  /** A token when this host now holds the task's lock, for `ttlMs` at most; null when another host does. */
  tryAcquire(task: string, ttlMs: number): Promise<string | null>;
  release(task: string, token: string): Promise<void>;
}

/** One process: nobody to exclude. */
export const localMaintenanceLock: MaintenanceLock = {
  tryAcquire: async () => "local",
  release: async () => {},
};
