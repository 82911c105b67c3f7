// BullMQ: one Queue, jobs added with Queue.addBulk, one Worker with
// concurrency = slots on a dedicated connection (maxRetriesPerRequest: null, as
// BullMQ requires). No per-key ordering: any job may run beside any other, so it
// is the speed ceiling of a Redis queue rather than a peer with oah's semantics.
// The worker runs in the bench process; job timings are BullMQ's own
// (job.timestamp, job.processedOn, job.finishedOn), collected from the worker's
// `completed` events (and, for dispatch latency, the handler's first line on a
// sub-millisecond clock). Completed jobs are kept in Redis (BullMQ's default), as oah
// keeps its runs. `durable`: on a private Redis of its own with `appendonly yes` and
// `appendfsync always`, the speed of a Redis queue that keeps its jobs through a crash.

import { type PrivateRedis, startPrivateRedis } from "@oah/testing";
import { type ConnectionOptions, type Job, Queue, Worker } from "bullmq";
import { preciseNow, sleep } from "../log";
import type { BenchRedisPrefix, Services } from "../services";
import { InProcessPeer } from "./in-process-peer";
import type { JobSpec } from "./types";

const QUEUE = "bench";
const ADD_CHUNK = 1_000;

function connectionOf(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    maxRetriesPerRequest: null,
  };
}

interface Data {
  sleepMs: number;
}

export class BullmqPeer extends InProcessPeer {
  readonly id: "bullmq" | "bullmqFsync";
  readonly label: string;
  private prefix: BenchRedisPrefix | undefined;
  /** The durable peer's own Redis, from setup to teardown. */
  private durableRedis: PrivateRedis | undefined;
  private queue: Queue<Data> | undefined;
  private worker: Worker<Data> | undefined;
  private handlerStart = new Map<string, number>();

  constructor(
    private readonly services: Services,
    private readonly options: { durable?: boolean } = {},
  ) {
    super("BullMQ");
    this.id = options.durable ? "bullmqFsync" : "bullmq";
    this.label = options.durable ? "BullMQ on Redis with appendfsync always" : "BullMQ (no per-key order)";
  }

  private get redisUrl(): string {
    return this.durableRedis?.url ?? this.services.redisUrl;
  }

  async setup(): Promise<void> {
    if (this.options.durable) this.durableRedis = await startPrivateRedis({ durable: true });
    this.prefix = await this.services.createRedisPrefix("bull");
    this.finished.clear();
    this.handlerStart.clear();
    this.queue = new Queue<Data>(QUEUE, {
      connection: connectionOf(this.redisUrl),
      prefix: this.prefix.prefix,
    });
    await this.queue.waitUntilReady();
  }

  async submitBulk(jobs: readonly JobSpec[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += ADD_CHUNK) {
      await this.queue!.addBulk(
        jobs.slice(i, i + ADD_CHUNK).map((j) => ({ name: "noop", data: { sleepMs: j.sleepMs } })),
      );
    }
  }

  async submitOne(job: JobSpec): Promise<string> {
    const added = await this.queue!.add("noop", { sleepMs: job.sleepMs });
    return added.id!;
  }

  async startWorkers(slots: number): Promise<void> {
    this.worker = new Worker<Data>(
      QUEUE,
      async (job: Job<Data>) => {
        this.handlerStart.set(job.id!, preciseNow());
        if (job.data.sleepMs > 0) await sleep(job.data.sleepMs);
      },
      { connection: connectionOf(this.redisUrl), prefix: this.prefix!.prefix, concurrency: slots },
    );
    this.worker.on("completed", (job) => {
      const t = {
        enqueuedAt: job.timestamp,
        startedAt: job.processedOn!,
        endedAt: job.finishedOn!,
        startedAtPrecise: this.handlerStart.get(job.id!),
      };
      this.handlerStart.delete(job.id!);
      this.finished.record(job.id!, t);
    });
    this.worker.on("failed", (job, error) => {
      this.finished.fail(new Error(`BullMQ job ${job?.id} failed: ${error.message}`));
    });
    this.worker.on("error", () => {});
    await this.worker.waitUntilReady();
  }

  async teardown(): Promise<void> {
    await this.worker?.close(true).catch(() => {});
    await this.queue?.close().catch(() => {});
    this.worker = undefined;
    this.queue = undefined;
    await this.prefix?.clear();
    this.prefix = undefined;
    await this.durableRedis?.stop();
    this.durableRedis = undefined;
  }
}
