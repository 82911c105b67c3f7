// graphile-worker with one named queue per session (`queue_name` = session id):
// jobs of a session run one at a time, in order, which are oah's per-key serial
// semantics, on PostgreSQL alone. Its own database (dropped at the end);
// migrated by makeWorkerUtils().migrate(); jobs added with addJobs in chunks of
// 1,000 (one `graphile_worker.add_jobs` call each); run() with concurrency =
// slots and a pool of max(10, slots + 2) connections, as its docs advise. The
// worker runs in the bench process. graphile deletes a job when it completes, so
// the task records its own start and end (on a sub-millisecond clock) into an in-memory array,
// with the job's run_at (the database's time of insertion) as its enqueue time.
// The pools are ours (pgPool), so that teardown can end them before the database
// is dropped.
import {
  type Job,
  Logger,
  makeWorkerUtils,
  type Runner,
  run,
  type TaskList,
  type WorkerUtils,
} from "graphile-worker";
import pg from "pg";
import { preciseNow, sleep } from "../log";
import type { BenchDatabase, Services } from "../services";
import { InProcessPeer } from "./in-process-peer";
import type { JobSpec } from "./types";

const TASK = "noop";
const ADD_CHUNK = 1_000;

function pool(url: string, max: number, self: { stopping: boolean }): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max });
  const onError = (error: Error) => {
    if (!self.stopping) process.stderr.write(`graphile-worker pool: ${error.message}\n`);
  };
  p.on("error", onError);
  p.on("connect", (client) => client.on("error", onError));
  return p;
}

export class GraphilePeer extends InProcessPeer {
  readonly id = "graphileNamedQueues" as const;
  readonly label = "graphile-worker (a named queue per session)";
  private db: BenchDatabase | undefined;
  private utils: WorkerUtils | undefined;
  private runner: Runner | undefined;
  /** Pools of our own (utils, runner), so that teardown ends them before the database is dropped. */
  private pools: pg.Pool[] = [];
  stopping = false;

  constructor(private readonly services: Services) {
    super("graphile-worker");
  }

  async setup(): Promise<void> {
    this.db = await this.services.createDatabase("graphile");
    this.finished.clear();
    this.stopping = false;
    const utilsPool = pool(this.db.url, 4, this);
    this.pools.push(utilsPool);
    this.utils = await makeWorkerUtils({ pgPool: utilsPool, logger: this.logger() });
    await this.utils.migrate();
  }

  async submitBulk(jobs: readonly JobSpec[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += ADD_CHUNK) {
      await this.utils!.addJobs(
        jobs.slice(i, i + ADD_CHUNK).map((j) => ({
          identifier: TASK,
          payload: { sleepMs: j.sleepMs },
          queueName: j.sessionId,
        })),
      );
    }
  }

  async submitOne(job: JobSpec): Promise<string> {
    const added: Job = await this.utils!.addJob(TASK, { sleepMs: job.sleepMs }, { queueName: job.sessionId });
    return String(added.id);
  }

  async startWorkers(slots: number): Promise<void> {
    const taskList: TaskList = {
      [TASK]: async (payload, helpers) => {
        const startedAt = preciseNow();
        const { sleepMs } = payload as { sleepMs: number };
        if (sleepMs > 0) await sleep(sleepMs);
        const t = {
          enqueuedAt: helpers.job.run_at.getTime(),
          startedAt,
          endedAt: preciseNow(),
          startedAtPrecise: startedAt,
        };
        this.finished.record(String(helpers.job.id), t);
      },
    };
    const runnerPool = pool(this.db!.url, Math.max(10, slots + 2), this);
    this.pools.push(runnerPool);
    this.runner = await run({
      pgPool: runnerPool,
      concurrency: slots,
      noHandleSignals: true,
      logger: this.logger(),
      taskList,
    });
    this.runner.promise.catch((error: Error) => {
      this.finished.fail(error);
    });
  }

  private logger(): Logger {
    return new Logger(() => (level, message) => {
      if (level === "error" && !this.stopping) process.stderr.write(`graphile-worker: ${message}\n`);
    });
  }

  async teardown(): Promise<void> {
    this.stopping = true;
    await Promise.resolve(this.runner?.stop()).catch(() => {});
    await Promise.resolve(this.utils?.release()).catch(() => {});
    for (const p of this.pools) await p.end().catch(() => {});
    this.pools = [];
    this.runner = undefined;
    this.utils = undefined;
    await this.db?.drop();
    this.db = undefined;
  }
}
