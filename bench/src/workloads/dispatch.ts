// (b) Dispatch latency on an idle pool: one job at a time (each in a new
// session), submit → start. "Submit" is the bench's clock just before it sends
// the job (oah: the HTTP POST; BullMQ: Queue.add; graphile: addJob), "start" is
// the system's own record (oah: runs.started_at; BullMQ: job.processedOn;
// graphile: the task's first line); all on this machine's clock. The next job is
// sent once the previous one has ended. The bench's clock is sub-millisecond; so
// is the start of the peers, whose handler runs in the bench process (BullMQ and
// graphile record their handler's first line); oah's started_at is whole
// milliseconds (Date.now() of another process, truncated), taken as the middle of
// its millisecond (+0.5 ms).
import { log, preciseNow, sleep } from "../log";
import type { Peer } from "../peers";
import { percentile, round } from "../stats";

export const DISPATCH_SLOTS = 4;
const WARM_UP = 10;

export interface DispatchResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  /** From the system's own enqueue stamp to its start stamp (oah: enqueued_at → started_at). */
  storeP50Ms: number;
  storeP99Ms: number;
  /** How long the submit call took to return (oah: the HTTP POST answered 202; peers: add resolved). */
  acceptP50Ms: number;
}

export async function dispatchOnce(peer: Peer, samples: number): Promise<DispatchResult> {
  await peer.setup();
  try {
    await peer.startWorkers(DISPATCH_SLOTS);
    await sleep(1_000); // the pool reaches its size, registrations settle
    const latencies: number[] = [];
    const store: number[] = [];
    const accept: number[] = [];
    for (let i = 0; i < samples + WARM_UP; i++) {
      const sent = preciseNow();
      const id = await peer.submitOne({ sessionId: `dispatch-${i}`, sleepMs: 0 });
      const accepted = preciseNow();
      const t = await peer.waitJob(id, 10_000);
      if (i < WARM_UP) continue; // connections, JIT
      // A whole-millisecond stamp (Date.now(), truncated) stands for the middle of its millisecond.
      latencies.push((t.startedAtPrecise ?? t.startedAt + 0.5) - sent);
      store.push(t.startedAt - t.enqueuedAt);
      accept.push(accepted - sent);
    }
    const result = {
      samples,
      p50Ms: round(percentile(latencies, 50), 2),
      p99Ms: round(percentile(latencies, 99), 2),
      storeP50Ms: round(percentile(store, 50), 2),
      storeP99Ms: round(percentile(store, 99), 2),
      acceptP50Ms: round(percentile(accept, 50), 2),
    };
    log(
      `  dispatch ${peer.id}: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms ` +
        `(own stamps: p50 ${result.storeP50Ms}, p99 ${result.storeP99Ms}; submit call p50 ${result.acceptP50Ms})`,
    );
    return result;
  } finally {
    await peer.teardown();
  }
}
