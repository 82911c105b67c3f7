import type { PoolOverview, PoolSample } from "@oah/contract";
import { largestPresent } from "./aggregate";
import { ALL_HOSTS } from "./hosts";

/** The pool samples its history every 5 s; totals add up hosts' samples of the same 5 s. */
const BUCKET_MS = 5_000;
/** Above this many points, lines are drawn without dots. */
const MAX_DOTS = 120;

/** One instant of the history charts. */
export interface ChartPoint {
  at: number;
  ready: number;
  busy: number;
  idle: number;
  desired: number;
  p50: number | null;
  p95: number | null;
}

const toPoint = (s: PoolSample): ChartPoint => ({
  at: s.at,
  ready: s.readySessionCount,
  busy: s.busyWorkers,
  idle: s.idleWorkers,
  desired: s.desired,
  p50: s.queueWaitP50Ms,
  p95: s.queueWaitP95Ms,
});

/**
 * The chart series of one host, or of all hosts: their samples of the same 5 s add up their
 * workers, and take the largest of the queue-wide figures (every host reads the same queue).
 */
export function historyPoints(history: PoolOverview["history"], hostId: string): ChartPoint[] {
  if (hostId !== ALL_HOSTS) return (history.find((h) => h.hostId === hostId)?.samples ?? []).map(toPoint);
  const buckets = new Map<number, ChartPoint>();
  for (const { samples } of history) {
    for (const sample of samples) {
      const at = Math.round(sample.at / BUCKET_MS) * BUCKET_MS;
      const p = toPoint(sample);
      const b = buckets.get(at);
      if (!b) {
        buckets.set(at, { ...p, at });
        continue;
      }
      b.ready = Math.max(b.ready, p.ready);
      b.busy += p.busy;
      b.idle += p.idle;
      b.desired += p.desired;
      b.p50 = largestPresent([b.p50, p.p50]);
      b.p95 = largestPresent([b.p95, p.p95]);
    }
  }
  return [...buckets.values()].sort((a, b) => a.at - b.at);
}

/** The lines' dots: one per point while they stay readable, none beyond. */
export const dotsFor = (points: number): { r: number } | false => (points <= MAX_DOTS ? { r: 2 } : false);
