/** Lets one host at a time scan for stale runs (SPEC §7). */
export interface RecoveryLock {
  /** A token when this host now holds the lock, for `ttlMs` at most; null when another host does. */
  tryAcquire(ttlMs: number): Promise<string | null>;
  release(token: string): Promise<void>;
}

/** One process: nobody to exclude. */
export const localRecoveryLock: RecoveryLock = {
  tryAcquire: async () => "local",
  release: async () => {},
};
