import type { HostContext } from "../host";
import { Worker, type WorkerState } from "./worker";

export interface SlotSnapshot {
  id: string;
  state: WorkerState;
  sessionId: string | null;
  runId: string | null;
}

/** The workers of one host. Fixed size for now; elastic sizing comes with the Redis backend. */
export class WorkerPool {
  private readonly workers: Worker[] = [];
  private next = 0;

  constructor(
    private readonly host: HostContext,
    private readonly size: number,
  ) {}

  start(): void {
    while (this.workers.length < this.size) {
      const worker = new Worker(`${this.host.hostId}/w${++this.next}`, this.host);
      this.workers.push(worker);
      worker.start();
    }
  }

  slots(): SlotSnapshot[] {
    return this.workers.map((w) => ({
      id: w.id,
      state: w.state,
      sessionId: w.current?.sessionId ?? null,
      runId: w.current?.runId ?? null,
    }));
  }

  /** Stops claiming; resolves true when every worker's run in hand ended within `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    const stopped = Promise.all(this.workers.map((w) => w.stop())).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const drained = await Promise.race([stopped, timedOut]);
    clearTimeout(timer);
    return drained;
  }

  /** Resolves when every worker loop has ended. */
  async stopped(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
