// oah in production single-node mode: `oah-api` with its embedded worker pool,
// Redis for the queue and locks, PostgreSQL for the store.
//
// Bulk: the runs are submitted through an `oah-api --api-only` (no worker
// anywhere), which is then stopped (see oah-snapshots.ts: that submission is made
// once and copied); `startWorkers` starts the real `oah-api` on the same database
// and prefix with OAH_WORKERS_MIN = OAH_WORKERS_MAX = slots, so every run is queued
// before a worker exists. When a workload starts the workers first (dispatch,
// mixed), that `oah-api` takes the submissions itself.
import type { BenchDatabase, BenchRedisPrefix, Services } from "../services";
import { OahPeer, postgresReader } from "./oah-common";
import type { OahSnapshots } from "./oah-snapshots";
import type { JobSpec } from "./types";

export class OahRedisPgEmbedded extends OahPeer {
  readonly id = "oahRedisPg" as const;
  readonly label = "oah Redis+PG (oah-api, embedded pool)";
  private db: BenchDatabase | undefined;
  private prefix: BenchRedisPrefix | undefined;

  constructor(
    private readonly services: Services,
    snapshots: OahSnapshots,
  ) {
    super(snapshots);
  }

  private use(db: BenchDatabase, prefix: BenchRedisPrefix): void {
    this.db = db;
    this.prefix = prefix;
    this.env = {
      OAH_DATABASE_URL: db.url,
      OAH_REDIS_URL: this.services.redisUrl,
      OAH_REDIS_PREFIX: prefix.prefix,
      OAH_DATA_DIR: this.newDataDir(),
      OAH_LOG_LEVEL: "error",
    };
    this.reader = postgresReader(db.url);
  }

  protected async freshStore(): Promise<void> {
    this.use(await this.services.createDatabase("redispg"), await this.services.createRedisPrefix("redispg"));
  }

  protected async storeFromTemplate(jobs: readonly JobSpec[]): Promise<void> {
    const template = await this.snapshots.redisPgTemplate(jobs);
    const { db, prefix } = await this.snapshots.cloneRedisPg(template, "redispg");
    this.use(db, prefix);
  }

  async startWorkers(slots: number): Promise<void> {
    await this.ensureStore();
    const n = String(slots);
    await this.startApi({ OAH_WORKERS_MIN: n, OAH_WORKERS_MAX: n });
  }

  protected override async dropData(): Promise<void> {
    await this.prefix?.clear();
    await this.db?.drop();
    this.prefix = undefined;
    this.db = undefined;
  }
}
