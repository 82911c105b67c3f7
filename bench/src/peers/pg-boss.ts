// pg-boss 12 with the `key_strict_fifo` queue policy and `singletonKey` = the session: FIFO
// per key, a key's next job held back while one is active, on PostgreSQL alone; durable and
// strictly serial per key, the closest peer to oah. Its own database (dropped at the end),
// schema made by start(); jobs added with insert() in chunks of 1,000. The queue has
// `notify: true` (LISTEN/NOTIFY wakes the workers), and work() runs `slots` workers
// (localConcurrency), each fetching batches of 10 with burstWhenBatchFull, as its docs
// advise for throughput. A batch's jobs run one after the other in the bench process, each
// recording its start and end (on a sub-millisecond clock) and its createdOn.
import { type Job, type JobWithMetadata, PgBoss } from "pg-boss";
import { preciseNow, sleep } from "../log";
import type { BenchDatabase, Services } from "../services";
import { InProcessPeer } from "./in-process-peer";
import type { JobSpec } from "./types";

const QUEUE = "bench";
const ADD_CHUNK = 1_000;
const FETCH_BATCH = 10;

interface Data {
  sleepMs: number;
}

export class PgBossPeer extends InProcessPeer {
  readonly id = "pgBossStrictFifo" as const;
  readonly label = "pg-boss (key_strict_fifo, a key per session)";
  private db: BenchDatabase | undefined;
  private boss: PgBoss | undefined;
  private stopping = false;

  constructor(private readonly services: Services) {
    super("pg-boss");
  }

  async setup(): Promise<void> {
    this.db = await this.services.createDatabase("pgboss");
    this.finished.clear();
    this.stopping = false;
    this.boss = new PgBoss({ connectionString: this.db.url, max: 20 });
    this.boss.on("error", (error: Error) => {
      if (!this.stopping) process.stderr.write(`pg-boss: ${error.message}\n`);
    });
    await this.boss.start();
    await this.boss.createQueue(QUEUE, { policy: "key_strict_fifo", notify: true, retryLimit: 0 });
  }

  async submitBulk(jobs: readonly JobSpec[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += ADD_CHUNK) {
      await this.boss!.insert(
        QUEUE,
        jobs
          .slice(i, i + ADD_CHUNK)
          .map((j) => ({ data: { sleepMs: j.sleepMs }, singletonKey: j.sessionId })),
      );
    }
  }

  async submitOne(job: JobSpec): Promise<string> {
    const id = await this.boss!.send(QUEUE, { sleepMs: job.sleepMs }, { singletonKey: job.sessionId });
    if (!id) throw new Error("pg-boss: send() added no job");
    return id;
  }

  async startWorkers(slots: number): Promise<void> {
    await this.boss!.work<Data>(
      QUEUE,
      {
        localConcurrency: slots,
        batchSize: FETCH_BATCH,
        burstWhenBatchFull: true,
        pollingIntervalSeconds: 0.5,
        includeMetadata: true,
      },
      async (jobs: (Job<Data> | JobWithMetadata<Data>)[]) => {
        for (const job of jobs) {
          const startedAt = preciseNow();
          if (job.data.sleepMs > 0) await sleep(job.data.sleepMs);
          const createdOn = "createdOn" in job ? job.createdOn.getTime() : startedAt;
          this.finished.record(job.id, {
            enqueuedAt: createdOn,
            startedAt,
            endedAt: preciseNow(),
            startedAtPrecise: startedAt,
          });
        }
      },
    );
  }

  async teardown(): Promise<void> {
    this.stopping = true;
    await this.boss?.stop({ graceful: false }).catch(() => {});
    this.boss = undefined;
    await this.db?.drop();
    this.db = undefined;
  }
}
