import { sleep } from "../log";
import type { JobSpec, JobTiming, Peer, PeerId } from "./types";

/**
 * The jobs a peer whose workers run in the bench process (BullMQ, graphile-worker)
 * has finished, as its handlers record them, and the last failure they report.
 */
export class FinishedJobs {
  private done: JobTiming[] = [];
  private readonly byId = new Map<string, JobTiming>();
  private failure: Error | undefined;

  constructor(private readonly label: string) {}

  clear(): void {
    this.done = [];
    this.byId.clear();
    this.failure = undefined;
  }

  record(id: string, timing: JobTiming): void {
    this.done.push(timing);
    this.byId.set(id, timing);
  }

  fail(error: Error): void {
    this.failure = error;
  }

  async waitDone(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.done.length < count) {
      if (this.failure) throw this.failure;
      if (Date.now() > deadline)
        throw new Error(`${this.label}: only ${this.done.length} of ${count} jobs done`);
      await sleep(20);
    }
  }

  async waitJob(id: string, timeoutMs: number): Promise<JobTiming> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const t = this.byId.get(id);
      if (t) return t;
      if (this.failure) throw this.failure;
      if (Date.now() > deadline) throw new Error(`${this.label}: job ${id} did not finish`);
      await sleep(1);
    }
  }

  timings(): JobTiming[] {
    return [...this.done];
  }
}

/** Base of the peers oah is compared with: their workers run in the bench process and record each job. */
export abstract class InProcessPeer implements Peer {
  abstract readonly id: PeerId;
  abstract readonly label: string;
  readonly isOah = false;
  protected readonly finished: FinishedJobs;

  constructor(name: string) {
    this.finished = new FinishedJobs(name);
  }

  abstract setup(): Promise<void>;
  abstract submitBulk(jobs: readonly JobSpec[]): Promise<void>;
  abstract submitOne(job: JobSpec): Promise<string>;
  abstract startWorkers(slots: number): Promise<void>;
  abstract teardown(): Promise<void>;

  waitDone(count: number, timeoutMs: number): Promise<void> {
    return this.finished.waitDone(count, timeoutMs);
  }

  waitJob(id: string, timeoutMs: number): Promise<JobTiming> {
    return this.finished.waitJob(id, timeoutMs);
  }

  async timings(): Promise<JobTiming[]> {
    return this.finished.timings();
  }
}
