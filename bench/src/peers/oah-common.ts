// What the three oah systems share: one API process at a time, submission over HTTP,
// the store read directly (oah-client.ts), the bulk submissions copied (oah-snapshots.ts).
import { createTempDir, type OahProcess, startOah, type TempDir } from "@oah/testing";
import { sleep } from "../log";
import type { BenchDatabase, BenchRedisPrefix, Services } from "../services";
import { postgresReader, type RunsReader, submitJob, timing } from "./oah-client";
import type { OahSnapshots } from "./oah-snapshots";
import type { JobSpec, JobTiming, Peer, PeerId } from "./types";

/** Base of the oah systems: one API process at a time, submission over HTTP, the store read directly. */
export abstract class OahPeer implements Peer {
  abstract readonly id: PeerId;
  abstract readonly label: string;
  readonly isOah = true;
  protected api: OahProcess | undefined;
  protected dir: TempDir | undefined;
  protected reader: RunsReader | undefined;
  protected processes: OahProcess[] = [];
  /** Environment shared by every process of this system. */
  protected env: Record<string, string> = {};
  /** What a workload adds to that environment (an executor's endpoint, a switch it compares). */
  private added: Record<string, string> = {};

  constructor(protected readonly snapshots: OahSnapshots) {}

  /** A fresh, empty store (and Redis prefix): `env` and `reader` set, no process started. */
  protected abstract freshStore(): Promise<void>;
  /** A store (and Redis prefix) holding a copy of the template of `jobs`: `env` and `reader` set. */
  protected abstract storeFromTemplate(jobs: readonly JobSpec[]): Promise<void>;
  abstract startWorkers(slots: number): Promise<void>;

  async setup(): Promise<void> {}

  /** Adds to the environment of every process this system starts from now on. */
  addEnv(env: Record<string, string>): void {
    this.added = { ...this.added, ...env };
  }

  /** The environment of this system's processes. */
  protected get processEnv(): Record<string, string> {
    return { ...this.env, ...this.added };
  }

  /** The API's address, once started. */
  get url(): string {
    if (!this.api) throw new Error(`${this.label}: no API is running`);
    return this.api.url;
  }

  /** Its store, read directly, once it has one. */
  get runs(): RunsReader {
    if (!this.reader) throw new Error(`${this.label}: no store yet`);
    return this.reader;
  }

  protected async ensureStore(): Promise<void> {
    if (!this.reader) await this.freshStore();
  }

  protected async startApi(extraEnv: Record<string, string>, args: string[] = []): Promise<void> {
    this.api = await startOah("oah-api", { env: { ...this.processEnv, ...extraEnv }, args });
    this.processes.push(this.api);
  }

  protected newDataDir(): string {
    this.dir = createTempDir("oah-bench-");
    return this.dir.path;
  }

  /** Everything queued before any worker exists: a copy of a real bulk submission (see oah-snapshots.ts). */
  async submitBulk(jobs: readonly JobSpec[]): Promise<void> {
    if (this.reader) throw new Error(`${this.label}: submitBulk must come first`);
    await this.storeFromTemplate(jobs);
  }

  async submitOne(job: JobSpec): Promise<string> {
    if (!this.api) throw new Error(`${this.label}: no API is running`);
    return submitJob(this.api.url, job);
  }

  async waitDone(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { finished, notCompleted } = await this.reader!.finished();
      if (finished >= count) {
        if (notCompleted > 0) throw new Error(`${this.label}: ${notCompleted} runs did not complete`);
        return;
      }
      if (Date.now() > deadline) {
        const stuck = await this.reader!.unfinished();
        const logs = this.processes.map((p) => p.output().trim().split("\n").slice(-20).join("\n"));
        throw new Error(
          `${this.label}: only ${finished} of ${count} runs finished within ${timeoutMs} ms; unfinished: ` +
            `${JSON.stringify(stuck)}\nlast output of its processes:\n${logs.join("\n---\n")}`,
        );
      }
      await sleep(200);
    }
  }

  async waitJob(id: string, timeoutMs: number): Promise<JobTiming> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = await this.reader!.run(id);
      if (row?.ended_at != null) {
        if (row.status !== "completed") throw new Error(`${this.label}: run ${id} ended ${row.status}`);
        return timing(row);
      }
      if (Date.now() > deadline)
        throw new Error(`${this.label}: run ${id} did not finish within ${timeoutMs} ms`);
      await sleep(1);
    }
  }

  timings(): Promise<JobTiming[]> {
    return this.reader!.completed();
  }

  async teardown(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop("SIGKILL")));
    this.processes = [];
    this.api = undefined;
    await this.reader?.close();
    this.reader = undefined;
    await this.dropData();
    this.dir?.remove();
    this.dir = undefined;
  }

  protected async dropData(): Promise<void> {}
}

/** The oah systems over Redis + PostgreSQL: a database and a key prefix of their own. */
export abstract class OahRedisPgPeer extends OahPeer {
  private db: BenchDatabase | undefined;
  private prefix: BenchRedisPrefix | undefined;
  /** Names this system's databases and prefixes. */
  protected abstract readonly storeName: string;

  constructor(
    protected readonly services: Services,
    snapshots: OahSnapshots,
  ) {
    super(snapshots);
  }

  /** What the system starts as soon as its store exists (before any worker). */
  protected async onStore(): Promise<void> {}

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
    await this.onStore();
  }

  protected async freshStore(): Promise<void> {
    await this.use(
      await this.services.createDatabase(this.storeName),
      await this.services.createRedisPrefix(this.storeName),
    );
  }

  protected async storeFromTemplate(jobs: readonly JobSpec[]): Promise<void> {
    const template = await this.snapshots.redisPgTemplate(jobs);
    const { db, prefix } = await this.snapshots.cloneRedisPg(template, this.storeName);
    await this.use(db, prefix);
  }

  protected override async dropData(): Promise<void> {
    await this.prefix?.clear();
    await this.db?.drop();
    this.prefix = undefined;
    this.db = undefined;
  }
}
