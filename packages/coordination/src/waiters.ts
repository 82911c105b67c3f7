/**
 * Idle workers waiting for work, woken one per announcement. An announcement
 * that finds nobody waiting is remembered, so that the next worker to wait
 * looks once more instead of sleeping through it.
 */
export class Waiters {
  private readonly waiting = new Set<() => void>();
  private missed = false;

  /** Resolves when woken or aborted; at once if `workInSight` or an announcement was missed. */
  wait(signal: AbortSignal, workInSight = false): Promise<void> {
    if (signal.aborted || workInSight || this.missed) {
      this.missed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.waiting.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  wakeOne(): void {
    const [first] = this.waiting;
    if (first) first();
    else this.missed = true;
  }

  wakeAll(): void {
    this.missed = true;
    for (const done of [...this.waiting]) done();
  }
}
