/**
 * Group commit: calls made while a write is in flight are written together by
 * the next one, in one transaction. An idle store writes a call at once (no
 * added latency); a busy one pays one round trip and one commit per batch
 * instead of per call. With `concurrency` above 1 (reads, whose order does not
 * matter), that many batches may be in flight at once.
 */
export class GroupCommit<Request, Result> {
  private pending: { request: Request; resolve: (r: Result) => void; reject: (e: unknown) => void }[] = [];
  private flushers = 0;

  constructor(
    private readonly writeBatch: (requests: Request[]) => Promise<Result[]>,
    private readonly maxBatch = 200,
    private readonly concurrency = 1,
  ) {}

  submit(request: Request): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.pending.push({ request, resolve, reject });
      if (this.flushers < this.concurrency) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushers++;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        const results = await this.writeBatch(batch.map((b) => b.request));
        for (const [i, b] of batch.entries()) b.resolve(results[i]!);
        // Callers woken by these results often call again at once (a run that started
        // ends; a slot starts its next run): let them, so that their calls leave in the
        // next write rather than wait for it to come back and leave in the one after.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        // One bad call must not fail the others: write them one by one.
        for (const b of batch) {
          this.writeBatch([b.request]).then(([r]) => b.resolve(r!), b.reject);
        }
      }
    }
    this.flushers--;
  }
}
