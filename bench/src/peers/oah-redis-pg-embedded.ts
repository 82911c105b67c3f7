// oah in production single-node mode: `oah-api` with its embedded worker pool,
// Redis for the queue and locks, PostgreSQL for the store.
//
// Bulk: the runs are submitted through an `oah-api --api-only` (no worker
// anywhere), which is then stopped (see oah-snapshots.ts: that submission is made
// once and copied); `startWorkers` starts the real `oah-api` on the same database
// and prefix with OAH_WORKERS_MIN = OAH_WORKERS_MAX = slots, so every run is queued
// before a worker exists. When a workload starts the workers first (dispatch,
// mixed), that `oah-api` takes the submissions itself.
import { OahRedisPgPeer } from "./oah-common";

export class OahRedisPgEmbedded extends OahRedisPgPeer {
  readonly id = "oahRedisPg" as const;
  readonly label = "oah Redis+PG (oah-api, embedded pool)";
  protected readonly storeName = "redispg";

  /** The one process that takes the API calls and executes the runs. */
  hostPid(): number {
    const pid = this.api?.child.pid;
    if (pid === undefined) throw new Error(`${this.label}: not started`);
    return pid;
  }

  /** How many runs have started so far. */
  startedCount(): Promise<number> {
    return this.reader!.startedCount();
  }

  async startWorkers(slots: number): Promise<void> {
    await this.ensureStore();
    const n = String(slots);
    await this.startApi({ OAH_WORKERS_MIN: n, OAH_WORKERS_MAX: n });
  }
}
