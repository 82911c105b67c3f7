import type { Services } from "../services";

/** One unit of work: a no-op (sleepMs 0) or a sleep, in a session (a per-key serial queue for those that have one). */
export interface JobSpec {
  sessionId: string;
  sleepMs: number;
  /** oah only: the run waits for a client's tool result that never comes (it parks, workload p). */
  waitsForTool?: boolean;
}

/** Times of one finished job, epoch ms, from the peer's own records. */
export interface JobTiming {
  /** Its session, where the peer's records keep it (oah). */
  sessionId?: string;
  /** When the job entered the queue (oah: runs.enqueued_at; BullMQ: job.timestamp; graphile: job.run_at). */
  enqueuedAt: number;
  /** When a worker started it (oah: runs.started_at; BullMQ: job.processedOn; graphile: the task's first line). */
  startedAt: number;
  /** When it ended (oah: runs.ended_at; BullMQ: job.finishedOn; graphile: the task's last line). */
  endedAt: number;
  /**
   * The start on a sub-millisecond clock (performance.timeOrigin + performance.now()), where the worker
   * runs in the bench process (BullMQ, graphile: the handler's first line); dispatch latency uses it
   * when present, since sub-millisecond dispatches would all read 0 or 1 in whole milliseconds.
   */
  startedAtPrecise?: number;
}

/** The systems in the order they alternate within a repetition. */
export const PEER_IDS = [
  "oahRedisPg",
  "bullmq",
  "oahSplit",
  "pgBossStrictFifo",
  "graphileNamedQueues",
  "bullmqFsync",
  "oahEmbedded",
] as const;
export type PeerId = (typeof PEER_IDS)[number];

/**
 * The small interface every system under test exposes. A workload calls, in order:
 * setup, then either submitBulk + startWorkers (everything queued before any
 * worker exists) or startWorkers + submitOne…, then waitDone, timings, teardown.
 */
export interface Peer {
  readonly id: PeerId;
  readonly label: string;
  /** True for the oah systems; the others are the peers oah is compared with. */
  readonly isOah: boolean;
  /** A fresh, empty queue and store of its own. */
  setup(): Promise<void>;
  /** Enqueues every job, with no worker running. */
  submitBulk(jobs: readonly JobSpec[]): Promise<void>;
  /** Enqueues one job; resolves with its id once the system has accepted it. */
  submitOne(job: JobSpec): Promise<string>;
  /** Starts `slots` execution slots (workers / concurrency). */
  startWorkers(slots: number): Promise<void>;
  /** Resolves once `count` jobs have finished. */
  waitDone(count: number, timeoutMs: number): Promise<void>;
  /** Resolves with the timings of one job once it has finished (polls closely: for dispatch latency). */
  waitJob(id: string, timeoutMs: number): Promise<JobTiming>;
  /** Timings of every finished job. */
  timings(): Promise<JobTiming[]>;
  /** Stops its processes and workers and removes its data. */
  teardown(): Promise<void>;
}

export type PeerFactory = (services: Services) => Peer;
