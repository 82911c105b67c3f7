import type { PoolReport, PoolSample, PoolSnapshot } from "@oah/contract";
import type { PoolBoard } from "@oah/coordination";

export interface PoolPublishingSettings {
  hostId: string;
  /** Where the pools of every live host are published; null when this process is the only host. */
  board: PoolBoard | null;
  /** How long a published report stands unless renewed. */
  reportTtlMs: number;
  /** One sample of history per this many ms, kept for `historyLength` samples. */
  historyIntervalMs: number;
  historyLength: number;
}

/**
 * What a pool tells of itself: its report on the board at every tick, for the console and the
 * controllers (one not renewed lapses), and now and then a sample of its history, kept here
 * and published beside it. A board that cannot be reached is tried again at the next tick.
 */
export class PoolPublishing {
  private readonly samples: PoolSample[] = [];
  private lastSampleAt = 0;

  constructor(private readonly settings: PoolPublishingSettings) {}

  publish(report: PoolReport): void {
    const { hostId, board, reportTtlMs, historyIntervalMs, historyLength } = this.settings;
    const { snapshot } = report;
    if (snapshot.at - this.lastSampleAt >= historyIntervalMs) {
      this.lastSampleAt = snapshot.at;
      this.samples.push(sampleOf(snapshot));
      if (this.samples.length > historyLength) this.samples.shift();
      void board?.publishHistory(hostId, this.samples, historyIntervalMs * 3).catch(() => {});
    }
    void board?.publish(report, reportTtlMs).catch(() => {});
  }

  history(): PoolSample[] {
    return [...this.samples];
  }

  /** Takes this host's report off the board: it stops. */
  async withdraw(): Promise<void> {
    await this.settings.board?.remove(this.settings.hostId).catch(() => {});
  }
}

/** One point of the pool's history, for charts: read off its snapshot. */
function sampleOf(snapshot: PoolSnapshot): PoolSample {
  return {
    at: snapshot.at,
    readySessionCount: snapshot.pressure.readySessionCount,
    busyWorkers: snapshot.busyWorkers,
    idleWorkers: snapshot.idleWorkers,
    desired: snapshot.desired,
    queueWaitP50Ms: snapshot.queueWaitP50Ms,
    queueWaitP95Ms: snapshot.queueWaitP95Ms,
  };
}
