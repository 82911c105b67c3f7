import type { MaintenanceLock } from "@oah/coordination";
import type { Clock, Timer } from "../clock";
import type { Logger } from "../logger";
import type { EngineObservers } from "../observers";
import type { MaintenanceTask } from "./task";

/**
 * Runs a worker host's maintenance tasks: all of them in order before the pool starts,
 * then each on its own interval. One task at a time on a host (a task never races
 * another's reads of the same queue), and each under its lock, held for a short while:
 * a host killed or frozen while it runs one holds the others back only that long.
 */
export class Maintenance {
  private readonly timers: Timer[] = [];
  private readonly due = new Set<MaintenanceTask>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly tasks: readonly MaintenanceTask[],
    private readonly lock: MaintenanceLock,
    private readonly parts: { logger: Logger; observers: EngineObservers; clock: Clock },
  ) {}

  /** The pass at start; a failure is the host's (it does not start on a store it could not recover). */
  async runAtStart(): Promise<void> {
    for (const task of this.tasks) await this.runOnce(task, true);
  }

  /** From now on each task with an interval runs on it; a failure is logged, and the next run tries again. */
  start(): void {
    for (const task of this.tasks) {
      if (task.intervalMs <= 0) continue;
      this.timers.push(this.parts.clock.setInterval(() => this.schedule(task), task.intervalMs));
    }
  }

  /** No new runs; resolves once the run under way (if any) has ended. */
  async stop(): Promise<void> {
    for (const timer of this.timers) timer.cancel();
    this.timers.length = 0;
    this.due.clear();
    await this.chain;
  }

  private schedule(task: MaintenanceTask): void {
    if (this.due.has(task)) return;
    this.due.add(task);
    this.chain = this.chain.then(async () => {
      if (!this.due.delete(task)) return;
      await this.runOnce(task, false).catch((err: unknown) =>
        this.parts.logger.warn({ err, task: task.name }, "maintenance failed"),
      );
    });
  }

  private async runOnce(task: MaintenanceTask, atStart: boolean): Promise<void> {
    const { clock, observers } = this.parts;
    const started = clock.now();
    const told = (outcome: "done" | "skipped" | "failed") =>
      observers.maintenanceRan?.({ task: task.name, outcome, durationMs: clock.now() - started });
    let token: string | null = null;
    try {
      token = await this.lock.tryAcquire(task.name, Math.max(5_000, 2 * task.intervalMs));
      if (!token) {
        told("skipped");
        return;
      }
      await task.run({ atStart });
      told("done");
    } catch (error) {
      told("failed");
      throw error;
    } finally {
      if (token) await this.lock.release(task.name, token).catch(() => {});
    }
  }
}
