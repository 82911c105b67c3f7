// oah in split mode: `oah-api --api-only` takes the submissions, `oah-sandbox`
// processes execute them (Redis for the queue, PostgreSQL for the store).
// Bulk: the same submission as the embedded Redis+PG system (through an
// `oah-api --api-only`, see oah-snapshots.ts); the sandboxes start after it.
// Slots are spread over sandboxes of at most 16 (8 → one sandbox of 8, 32 → two
// of 16).
import { startOah } from "@oah/testing";
import type { BenchDatabase, BenchRedisPrefix, Services } from "../services";
import { OahPeer, postgresReader } from "./oah-common";
import type { OahSnapshots } from "./oah-snapshots";
import type { JobSpec } from "./types";

export const SLOTS_PER_SANDBOX = 16;

export class OahSplit extends OahPeer {
  readonly id = "oahSplit" as const;
  readonly label = "oah split (--api-only + oah-sandbox)";
  private db: BenchDatabase | undefined;
  private prefix: BenchRedisPrefix | undefined;

  constructor(
    private readonly services: Services,
    snapshots: OahSnapshots,
  ) {
    super(snapshots);
  }

  private async use(db: BenchDatabase, prefix: BenchRedisPrefix): Promise<void> {
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
    await this.startApi({}, ["--api-only"]);
  }

  protected async freshStore(): Promise<void> {
    await this.use(
      await this.services.createDatabase("split"),
      await this.services.createRedisPrefix("split"),
    );
  }

  protected async storeFromTemplate(jobs: readonly JobSpec[]): Promise<void> {
    const template = await this.snapshots.redisPgTemplate(jobs);
    const { db, prefix } = await this.snapshots.cloneRedisPg(template, "split");
    await this.use(db, prefix);
  }

  async startWorkers(slots: number): Promise<void> {
    await this.ensureStore();
    const starts: Promise<void>[] = [];
    for (let left = slots; left > 0; left -= SLOTS_PER_SANDBOX) {
      const n = String(Math.min(SLOTS_PER_SANDBOX, left));
      starts.push(
        startOah("oah-sandbox", { env: { ...this.env, OAH_WORKERS_MIN: n, OAH_WORKERS_MAX: n } }).then(
          (p) => {
            this.processes.push(p);
          },
        ),
      );
    }
    await Promise.all(starts);
  }

  protected override async dropData(): Promise<void> {
    await this.prefix?.clear();
    await this.db?.drop();
    this.prefix = undefined;
    this.db = undefined;
  }
}
