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
import { PEER_LABELS, type Peer, type PeerId } from "../peers";
import { percentile, round, type Summary, summarize } from "../stats";
import type { AbsoluteRow, ComparedRow } from "../table";
import { add, oahSystems, otherSystems, versus, type Workload } from "../workload";

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

/** Each system's rounds by its id, in the order of the repetitions. */
type DispatchRaw = Map<PeerId, DispatchResult[]>;

export const dispatch: Workload<DispatchRaw> = {
  name: "dispatch",
  alias: "b",
  measures: "submit → start of one run at a time on an idle pool",
  systems: "peers",
  writes: {
    dispatch: ["unit", "headline", "p50Ms", "p99Ms", "slots", "samples", "byPeer"],
  },
  async run({ plan, withPeer }) {
    const raw: DispatchRaw = new Map();
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(
        `(b) dispatch latency, ${plan.dispatch.samples} runs one at a time, repetition ${rep}/${plan.reps}`,
      );
      for (const id of plan.peers)
        add(raw, id, await withPeer(id, (p) => dispatchOnce(p, plan.dispatch.samples)));
    }
    return raw;
  },
  report(raw, plan) {
    const oahIds = oahSystems(plan);
    const byPeer: Partial<Record<PeerId, Record<string, Summary>>> = {};
    for (const id of plan.peers) {
      const rs = raw.get(id)!;
      byPeer[id] = {
        p50Ms: summarize(rs.map((r) => r.p50Ms)),
        p99Ms: summarize(rs.map((r) => r.p99Ms)),
        ownStampsP50Ms: summarize(rs.map((r) => r.storeP50Ms)),
        ownStampsP99Ms: summarize(rs.map((r) => r.storeP99Ms)),
        submitCallP50Ms: summarize(rs.map((r) => r.acceptP50Ms)),
      };
    }
    const compared: ComparedRow[] = [];
    for (const q of ["p50Ms", "p99Ms"] as const)
      for (const oah of oahIds)
        for (const peer of otherSystems(plan))
          compared.push({
            figure: `dispatch ${q.slice(0, 3)}, submit → start (ms): ${versus(oah, peer)}`,
            oah: byPeer[oah]![q]!,
            peer: byPeer[peer]![q]!,
            better: "lower",
          });
    const absolute: AbsoluteRow[] = [];
    for (const oah of oahIds)
      absolute.push({
        figure: `dispatch, ${PEER_LABELS[oah]}: enqueued_at → started_at in the store, p50 / p99 (ms)`,
        value: `${byPeer[oah]!.ownStampsP50Ms!.median} / ${byPeer[oah]!.ownStampsP99Ms!.median}`,
      });
    for (const id of plan.peers)
      absolute.push({
        figure: `dispatch, ${PEER_LABELS[id]}: the submit call returns, p50 (ms)`,
        value: byPeer[id]!.submitCallP50Ms!,
      });
    const head = byPeer.oahRedisPg ?? byPeer[oahIds[0]!];
    const dispatch = {
      unit: "ms, bench clock before submitting → the system's start stamp; idle pool, one run at a time",
      headline: byPeer.oahRedisPg ? "oahRedisPg" : oahIds[0],
      p50Ms: head?.p50Ms?.median,
      p99Ms: head?.p99Ms?.median,
      slots: DISPATCH_SLOTS,
      samples: plan.dispatch.samples,
      byPeer,
    };
    return { sections: { dispatch }, compared, absolute };
  },
};
