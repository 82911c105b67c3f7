/**
 * Runs `tick` every `intervalMs` until stopped, never two at once: a tick still running
 * when the next is due makes that one skip. `stop` waits for the tick in flight, so that
 * nothing of it runs after. Its timer never keeps the process alive by itself.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }
}
