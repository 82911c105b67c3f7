import type { Clock, Timer } from "./clock";

/**
 * Runs `tick` every `intervalMs` of `clock` until stopped, never two at once: a tick still
 * running when the next is due makes that one skip. `stop` waits for the tick in flight, so
 * that nothing of it runs after. Its timer never keeps the process alive by itself.
 */
export class PeriodicTask {
  private timer: Timer | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  start(): void {
    this.timer ??= this.clock.setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, this.intervalMs);
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    await this.ticking;
  }
}
