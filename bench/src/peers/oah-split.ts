// oah in split mode: `oah-api --api-only` takes the submissions, `oah-sandbox`
// processes execute them (Redis for the queue, PostgreSQL for the store).
// Bulk: the same submission as the embedded Redis+PG system (through an
// `oah-api --api-only`, see oah-snapshots.ts); the sandboxes start after it.
// Slots are spread over sandboxes of at most 16 (8 → one sandbox of 8, 32 → two
// of 16).
import { type OahProcess, startOah } from "@oah/testing";
import { OahRedisPgPeer } from "./oah-common";

export const SLOTS_PER_SANDBOX = 16;

export class OahSplit extends OahRedisPgPeer {
  readonly id = "oahSplit" as const;
  readonly label = "oah split (--api-only + oah-sandbox)";
  protected readonly storeName = "split";

  protected override async onStore(): Promise<void> {
    await this.startApi({}, ["--api-only"]);
  }

  /** A fresh store and the API on it, no worker: for submissions alone. */
  async startApiOnly(): Promise<void> {
    await this.ensureStore();
  }

  /** The store's PostgreSQL URL, once the store exists. */
  databaseUrl(): string {
    const url = this.env.OAH_DATABASE_URL;
    if (!url) throw new Error(`${this.label}: no store yet`);
    return url;
  }

  /** The API's base URL, once it runs. */
  apiUrl(): string {
    if (!this.api) throw new Error(`${this.label}: no API is running`);
    return this.api.url;
  }

  /** The oah-sandbox processes started so far (every process but the API). */
  sandboxes(): OahProcess[] {
    return this.processes.filter((p) => p !== this.api);
  }

  async startWorkers(slots: number): Promise<void> {
    await this.ensureStore();
    const starts: Promise<void>[] = [];
    for (let left = slots; left > 0; left -= SLOTS_PER_SANDBOX) {
      const n = String(Math.min(SLOTS_PER_SANDBOX, left));
      starts.push(
        startOah("oah-sandbox", { env: { ...this.processEnv, OAH_WORKERS_MIN: n, OAH_WORKERS_MAX: n } }).then(
          (p) => {
            this.processes.push(p);
          },
        ),
      );
    }
    await Promise.all(starts);
  }
}
