// oah's embedded default: one `oah-api`, in-process queue, SQLite store at
// $OAH_DATA_DIR/.openharness/data/history.db.
//
// The in-process queue lives and dies with its process, so "everything queued
// before any worker exists" is done like this: the bulk submission goes to an
// `oah-api` whose pool can never start a worker (NO_WORKER_POOL: min 0, max 1, a
// scale-up that would need 1,000 agreeing samples an hour apart; the start-up jump
// goes to 0 because the queue is empty then), which is stopped with SIGTERM: the
// runs stay `queued` in SQLite (oah-snapshots.ts checks that none started; that
// submission is made once and its file copied). `startWorkers` then starts
// `oah-api` on the file with OAH_WORKERS_MIN = OAH_WORKERS_MAX = slots: at
// start-up it puts every queued run of the store back into its queue, in order,
// before it claims anything. That re-enqueue comes before the first start, so it
// is outside the measured drain (first start → last end), as the Redis systems'
// queue was filled by their API before their workers existed.
import { sqliteReader } from "./oah-client";
import { OahPeer } from "./oah-common";
import type { JobSpec } from "./types";

export class OahEmbeddedSqlite extends OahPeer {
  readonly id = "oahEmbedded" as const;
  readonly label = "oah embedded (SQLite, in-process)";

  private use(dataDir: string): void {
    this.env = { OAH_DATA_DIR: dataDir, OAH_LOG_LEVEL: "error" };
    this.reader = sqliteReader(dataDir);
  }

  protected async freshStore(): Promise<void> {
    this.use(this.newDataDir());
  }

  protected async storeFromTemplate(jobs: readonly JobSpec[]): Promise<void> {
    const template = await this.snapshots.sqliteTemplate(jobs);
    this.dir = this.snapshots.cloneSqlite(template);
    this.use(this.dir.path);
  }

  async startWorkers(slots: number): Promise<void> {
    await this.ensureStore();
    const n = String(slots);
    await this.startApi({ OAH_WORKERS_MIN: n, OAH_WORKERS_MAX: n });
  }
}
