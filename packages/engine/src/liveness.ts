import type { Clock } from "./clock";

/**
 * How long this host may go on executing runs without fresh proof that the other
 * hosts see it alive. Its lease lapses one session lock TTL after its last renewal,
 * and from then on another host may recover its runs; by then every step it runs
 * must be gone. So the window is shorter than the lease: `windowMs` after the last
 * renewal the step watchdog kills the host's step jails (even while this process
 * is frozen), and the host aborts its runs, writing nothing more, as soon as it finds
 * the window passed (a host cut off from Redis, or one that was frozen and woke up).
 */
export class Liveness {
  private deadline: number;
  private lost = false;
  private readonly renewedListeners = new Set<(remainingMs: number) => void>();
  private readonly lostListeners = new Set<() => void>();

  constructor(
    readonly windowMs: number,
    /**
     * The clock of the engine whose heartbeat renews it; the step watchdog, a process of its own,
     * counts the window it is told on the wall clock: a host that runs jails is on the system clock.
     */
    private readonly clock: Clock,
  ) {
    this.deadline = clock.now() + windowMs;
  }

  /** A lease renewal sent at `sentAt` succeeded: the lease lives at least a TTL from then. */
  renewed(sentAt: number): void {
    this.deadline = Math.max(this.deadline, sentAt + this.windowMs);
    if (this.remainingMs() === 0) return;
    this.lost = false;
    for (const listener of this.renewedListeners) listener(this.remainingMs());
  }

  /** What is left of the window (0 once it has passed). */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.clock.now());
  }

  /** Whether the host is still live; the first check that finds the window passed tells the listeners. */
  check(): boolean {
    if (this.clock.now() < this.deadline) return true;
    if (!this.lost) {
      this.lost = true;
      for (const listener of this.lostListeners) listener();
    }
    return false;
  }

  onRenewed(listener: (remainingMs: number) => void): () => void {
    this.renewedListeners.add(listener);
    return () => this.renewedListeners.delete(listener);
  }

  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }
}
